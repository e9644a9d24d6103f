import { setGroupPermissions } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const setGroupPermissionsHandler = implement(setGroupPermissions, async (c) => {
  const { id } = c.req.valid("param");
  const { permissions } = c.req.valid("json");
  return c.json(
    { group_id: id, permissions: await c.get("services").rbac.groups.setPermissions(id, permissions) },
    200,
  );
});
