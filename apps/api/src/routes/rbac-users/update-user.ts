import { updateUser } from "@dbmon/contract";
import { userChangesOf } from "../../auth/users.js";
import { implement } from "../../http/operations.js";

export const updateUserHandler = implement(updateUser, async (c) => {
  const { id } = c.req.valid("param");
  await c.get("services").rbac.users.update(c.get("access"), id, userChangesOf(c.req.valid("json")));
  return c.json({ message: "User updated" }, 200);
});
