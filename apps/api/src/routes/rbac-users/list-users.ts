import { listUsers } from "@dbmon/contract";
import { presentUser } from "../../auth/users.js";
import { implement } from "../../http/operations.js";

export const listUsersHandler = implement(listUsers, async (c) => {
  const users = await c.get("services").rbac.users.list();
  return c.json({ users: users.map(presentUser) }, 200);
});
