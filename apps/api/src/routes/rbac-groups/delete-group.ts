import { deleteGroup } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteGroupHandler = implement(deleteGroup, async (c) => {
  await c.get("services").rbac.groups.delete(c.req.valid("param").id);
  return c.body(null, 204);
});
