import { updateGroup } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentGroup } from "./present.js";

export const updateGroupHandler = implement(updateGroup, async (c) => {
  const group = await c.get("services").rbac.groups.update(c.req.valid("param").id, c.req.valid("json"));
  return c.json(presentGroup(group), 200);
});
