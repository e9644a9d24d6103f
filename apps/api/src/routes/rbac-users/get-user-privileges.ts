import { getUserPrivileges } from "@dbmon/contract";
import { describedPrivileges } from "../../auth/privileges.js";
import { implement } from "../../http/operations.js";

export const getUserPrivilegesHandler = implement(getUserPrivileges, async (c) => {
  const { user, privileges } = await c.get("services").rbac.users.privileges(c.req.valid("param").id);
  const shown = describedPrivileges(privileges);
  return c.json(
    {
      username: user.username,
      is_superuser: user.isSuperuser,
      groups: privileges.groups,
      mcp_privileges: shown.mcp,
      connection_privileges: shown.connections,
      admin_permissions: shown.permissions,
    },
    200,
  );
});
