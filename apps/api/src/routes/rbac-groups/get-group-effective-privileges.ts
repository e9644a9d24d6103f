import { getGroupEffectivePrivileges } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentConnectionAccess } from "../rbac-privileges/present.js";

export const getGroupEffectivePrivilegesHandler = implement(getGroupEffectivePrivileges, async (c) => {
  const { group, mcp, connections, permissions } = await c
    .get("services")
    .rbac.groups.effectivePrivileges(c.req.valid("param").id);
  return c.json(
    {
      group_name: group.name,
      mcp_privileges: mcp,
      connection_privileges: presentConnectionAccess(connections),
      admin_permissions: permissions,
    },
    200,
  );
});
