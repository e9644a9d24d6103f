import { stopBlackout } from "@dbmon/contract";
import { presentBlackout } from "../../alerting/blackouts.js";
import { implement } from "../../http/operations.js";

export const stopBlackoutHandler = implement(stopBlackout, async (c) =>
  c.json(
    presentBlackout(await c.get("services").blackouts.stop(c.get("access"), c.req.valid("param").id)),
    200,
  ),
);
