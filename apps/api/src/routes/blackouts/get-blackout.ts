import { getBlackout } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getBlackoutHandler = implement(getBlackout, async (c) =>
  c.json(await c.get("services").blackouts.get(c.get("access"), c.req.valid("param").id), 200),
);
