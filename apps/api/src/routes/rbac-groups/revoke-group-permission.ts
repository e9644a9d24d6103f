import { revokeGroupPermission } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const revokeGroupPermissionHandler = implement(revokeGroupPermission, async (c) => {
  const { id, permission } = c.req.valid("param");
  await c.get("services").rbac.groups.revokePermission(id, permission);
  return c.body(null, 204);
});
