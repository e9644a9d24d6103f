import { createUser } from "@dbmon/contract";
import { newUserOf } from "../../auth/users.js";
import { implement } from "../../http/operations.js";

export const createUserHandler = implement(createUser, async (c) => {
  const user = await c.get("services").rbac.users.create(c.get("access"), newUserOf(c.req.valid("json")));
  return c.json({ message: "User created", id: user.id }, 201);
});
