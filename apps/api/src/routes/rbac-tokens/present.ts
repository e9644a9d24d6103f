import type { ResolvedScope, ServiceToken } from "../../auth/token-administration.js";
import { presentConnectionAccess } from "../rbac-privileges/present.js";

/** A token's scope as the API shows it: `{scoped: false}` when it is not scoped. */
export function presentScope(scope: ResolvedScope | null) {
  if (!scope) {
    return { scoped: false };
  }
  return {
    scoped: true,
    connections: presentConnectionAccess(scope.connections),
    mcp_privileges: scope.mcpIds,
    admin_permissions: scope.permissions,
  };
}

export function presentToken({ token, owner, scope }: ServiceToken) {
  return {
    id: token.id,
    name: token.annotation,
    token_prefix: token.tokenHash.slice(0, 12),
    user_id: owner.id,
    username: owner.username,
    is_service_account: owner.isServiceAccount,
    is_superuser: owner.isSuperuser,
    expires_at: token.expiresAt?.toISOString() ?? null,
    created_at: token.createdAt.toISOString(),
    scope: scope ? presentScope(scope) : null,
  };
}
