import { getUserPrivileges } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { describedPrivileges } from "../../auth/privileges.js";
import type { App } from "../../http/app-type.js";
import { requireUser } from "./present.js";

export function registerGetUserPrivileges(app: App): void {
  app.openapi(guarded(getUserPrivileges, { permission: "manage_users" }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    const user = await requireUser(auth, id);
    const privileges = await auth.privilegesOf({
      userId: user.id,
      username: user.username,
      isSuperuser: user.isSuperuser,
      credential: { kind: "session" },
    });
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
}
