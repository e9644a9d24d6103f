import { getGroupEffectivePrivileges } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { mergeConnectionGrants } from "../../auth/privileges.js";
import type { App } from "../../http/app-type.js";
import { requireGroup } from "./present.js";

export function registerGetGroupEffectivePrivileges(app: App): void {
  app.openapi(guarded(getGroupEffectivePrivileges, { permission: "manage_permissions" }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    const group = await requireGroup(auth, id);
    const grants = await auth.groups.grantsOf(await auth.groups.groupAndAncestors(id));
    const connections = [...mergeConnectionGrants(grants.connections)].sort(([a], [b]) => a - b);
    return c.json(
      {
        group_name: group.name,
        mcp_privileges: grants.mcp,
        connection_privileges: connections.map(([connectionId, level]) => ({
          connection_id: connectionId,
          access_level: level,
        })),
        admin_permissions: grants.permissions,
      },
      200,
    );
  });
}
