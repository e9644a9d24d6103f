import { getGroup } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { WILDCARD } from "../../auth/model.js";
import type { App } from "../../http/app-type.js";
import { requireGroup } from "./present.js";

export function registerGetGroup(app: App): void {
  app.openapi(guarded(getGroup, { permission: "manage_groups" }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    const group = await requireGroup(auth, id);
    const [members, mcp, connections, permissions] = await Promise.all([
      auth.groups.members(id),
      auth.groups.mcpGrants(id),
      auth.groups.connectionGrants(id),
      auth.groups.permissionGrants(id),
    ]);
    return c.json(
      {
        id: group.id,
        name: group.name,
        description: group.description,
        created_at: group.createdAt.toISOString(),
        user_members: members.users,
        group_members: members.groups,
        mcp_privileges: mcp.map(({ identifier, item, grantedAt }) => ({
          id: item?.id ?? 0,
          identifier,
          item_type: (item?.itemType ?? "tool") as "tool" | "resource" | "prompt",
          description: item?.description ?? (identifier === WILDCARD ? "All MCP privileges" : ""),
          is_public: item?.isPublic ?? false,
          created_at: (item?.createdAt ?? grantedAt).toISOString(),
        })),
        connection_privileges: connections.map((grant) => ({
          id: grant.id,
          group_id: grant.groupId,
          connection_id: grant.connectionId,
          access_level: grant.accessLevel as "read" | "read_write",
          created_at: grant.createdAt.toISOString(),
        })),
        admin_permissions: permissions,
      },
      200,
    );
  });
}
