import { grantGroupMcpPrivilege } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const grantGroupMcpPrivilegeHandler = implement(grantGroupMcpPrivilege, async (c) => {
  await c
    .get("services")
    .rbac.groups.grantMcp(c.get("access"), c.req.valid("param").id, c.req.valid("json").privilege);
  return c.body(null, 204);
});
