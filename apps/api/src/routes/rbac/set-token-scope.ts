import { setTokenScope } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireKnownMcpIdentifiers, requireKnownPermissions, requireToken } from "./present.js";

export function registerSetTokenScope(app: App): void {
  app.openapi(guarded(setTokenScope, { permission: "manage_token_scopes" }), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { auth } = c.get("services");
    await requireToken(auth, id);
    // Unknown names are refused, not dropped: dropping the only entry would lift the narrowing.
    await requireKnownMcpIdentifiers(auth, body.mcp_privileges ?? []);
    requireKnownPermissions(body.admin_permissions ?? []);
    await auth.scopes.setScope(id, {
      connections: body.connections?.map((c) => ({
        connectionId: c.connection_id,
        accessLevel: c.access_level,
      })),
      mcp: body.mcp_privileges,
      permissions: body.admin_permissions,
    });
    return c.body(null, 204);
  });
}
