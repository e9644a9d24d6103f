import { getBlackout } from "@dbmon/contract";
import { presentBlackout } from "../../alerting/blackouts.js";
import { implement } from "../../http/operations.js";

export const getBlackoutHandler = implement(getBlackout, async (c) =>
  c.json(
    presentBlackout(await c.get("services").blackouts.get(c.get("access"), c.req.valid("param").id)),
    200,
  ),
);
