import { setTokenScope } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const setTokenScopeHandler = implement(setTokenScope, async (c) => {
  const body = c.req.valid("json");
  await c.get("services").rbac.tokens.setScope(c.get("access"), c.req.valid("param").id, {
    connections: body.connections?.map((grant) => ({
      connectionId: grant.connection_id,
      accessLevel: grant.access_level,
    })),
    mcp: body.mcp_privileges,
    permissions: body.admin_permissions,
  });
  return c.body(null, 204);
});
