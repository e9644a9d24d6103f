import { getGroupMcpPrivileges } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getGroupMcpPrivilegesHandler = implement(getGroupMcpPrivileges, async (c) => {
  const { id } = c.req.valid("param");
  return c.json({ group_id: id, privileges: await c.get("services").rbac.groups.mcpGrants(id) }, 200);
});
