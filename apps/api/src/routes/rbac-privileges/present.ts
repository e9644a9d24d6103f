import type { RegisteredMcpItem } from "../../auth/scopes.js";

/** A registered MCP item as the RBAC operations show it. */
export function presentMcpItem(item: RegisteredMcpItem) {
  return {
    id: item.id,
    identifier: item.identifier,
    item_type: item.itemType as "tool" | "resource" | "prompt",
    description: item.description,
    is_public: item.isPublic,
    created_at: item.createdAt.toISOString(),
  };
}

/** Connection grants of a group or a token scope as the RBAC operations show them. */
export function presentConnectionAccess(grants: { connectionId: number; accessLevel: string }[]) {
  return grants.map((grant) => ({
    connection_id: grant.connectionId,
    access_level: grant.accessLevel as "read" | "read_write",
  }));
}
