import { createGroup } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createGroupHandler = implement(createGroup, async (c) => {
  const { name, description } = c.req.valid("json");
  const group = await c.get("services").rbac.groups.create(name, description ?? "");
  return c.json({ id: group.id, name: group.name }, 201);
});
