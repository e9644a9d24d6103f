import type { Group } from "../../auth/groups.js";

/** A group with its count of direct members, as the RBAC operations show it. */
export function presentGroup(group: Group & { memberCount: number }) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    created_at: group.createdAt.toISOString(),
    member_count: group.memberCount,
  };
}
