import { deleteUser } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteUserHandler = implement(deleteUser, async (c) => {
  await c.get("services").rbac.users.delete(c.get("access"), c.req.valid("param").id);
  return c.body(null, 204);
});
