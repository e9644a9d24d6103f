import { getGroupPermissions } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getGroupPermissionsHandler = implement(getGroupPermissions, async (c) => {
  const { id } = c.req.valid("param");
  return c.json({ group_id: id, permissions: await c.get("services").rbac.groups.permissions(id) }, 200);
});
