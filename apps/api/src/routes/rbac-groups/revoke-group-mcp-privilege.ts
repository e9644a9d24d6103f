import { revokeGroupMcpPrivilege } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const revokeGroupMcpPrivilegeHandler = implement(revokeGroupMcpPrivilege, async (c) => {
  await c.get("services").rbac.groups.revokeMcp(c.req.valid("param").id, c.req.valid("query").name);
  return c.body(null, 204);
});
