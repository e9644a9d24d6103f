import { deleteBlackout } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteBlackoutHandler = implement(deleteBlackout, async (c) => {
  await c.get("services").blackouts.remove(c.get("access"), c.req.valid("param").id);
  return c.json({ status: "deleted" }, 200);
});
