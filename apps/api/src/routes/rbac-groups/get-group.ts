import { getGroup } from "@dbmon/contract";
import { WILDCARD } from "../../auth/model.js";
import { implement } from "../../http/operations.js";
import { presentMcpItem } from "../rbac-privileges/present.js";

export const getGroupHandler = implement(getGroup, async (c) => {
  const { group, members, mcp, connections, permissions } = await c
    .get("services")
    .rbac.groups.detail(c.req.valid("param").id);
  return c.json(
    {
      id: group.id,
      name: group.name,
      description: group.description,
      created_at: group.createdAt.toISOString(),
      user_members: members.users,
      group_members: members.groups,
      // A granted identifier no longer registered (or the wildcard) is shown with what is known.
      mcp_privileges: mcp.map(({ identifier, item, grantedAt }) =>
        item
          ? presentMcpItem(item)
          : {
              id: 0,
              identifier,
              item_type: "tool" as const,
              description: identifier === WILDCARD ? "All MCP privileges" : "",
              is_public: false,
              created_at: grantedAt.toISOString(),
            },
      ),
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
