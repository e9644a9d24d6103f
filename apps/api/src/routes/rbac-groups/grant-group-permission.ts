import { grantGroupPermission } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const grantGroupPermissionHandler = implement(grantGroupPermission, async (c) => {
  await c
    .get("services")
    .rbac.groups.grantPermission(c.req.valid("param").id, c.req.valid("json").permission);
  return c.body(null, 204);
});
