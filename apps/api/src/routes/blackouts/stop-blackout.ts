import { stopBlackout } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const stopBlackoutHandler = implement(stopBlackout, async (c) =>
  c.json(await c.get("services").blackouts.stop(c.get("access"), c.req.valid("param").id), 200),
);
