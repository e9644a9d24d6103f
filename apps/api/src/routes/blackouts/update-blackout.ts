import { updateBlackout } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const updateBlackoutHandler = implement(updateBlackout, async (c) =>
  c.json(
    await c.get("services").blackouts.update(c.get("access"), c.req.valid("param").id, c.req.valid("json")),
    200,
  ),
);
