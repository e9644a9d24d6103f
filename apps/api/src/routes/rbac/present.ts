import type { Group } from "../../auth/groups.js";
import { GroupRefusal } from "../../auth/groups.js";
import { type AccessLevel, isAdminPermission, WILDCARD } from "../../auth/model.js";
import type { TokenScope } from "../../auth/scopes.js";
import type { AuthService } from "../../auth/service.js";
import { type User, UserRefusal } from "../../auth/users.js";
import { ApiError } from "../../http/errors.js";

/** Turns the directories' refusals into API errors: invalid 400, duplicate 409, missing 404. */
export function asApiError(error: unknown): unknown {
  if (error instanceof UserRefusal || error instanceof GroupRefusal) {
    const status = error.reason === "invalid" ? 400 : error.reason === "duplicate" ? 409 : 404;
    return new ApiError(status, error.message);
  }
  return error;
}

export function presentGroup(group: Group, memberCount: number) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    created_at: group.createdAt.toISOString(),
    member_count: memberCount,
  };
}

export async function requireGroup(auth: AuthService, id: number): Promise<Group> {
  const group = await auth.groups.byId(id);
  if (!group) {
    throw new ApiError(404, "Group not found");
  }
  return group;
}

export async function requireUser(auth: AuthService, id: number): Promise<User> {
  const user = await auth.users.byId(id);
  if (!user) {
    throw new ApiError(404, "User not found");
  }
  return user;
}

/** Refuses MCP identifiers that are not registered (the wildcard is always known). */
export async function requireKnownMcpIdentifiers(auth: AuthService, identifiers: string[]): Promise<void> {
  const known = new Set((await auth.scopes.mcpItems()).map((item) => item.identifier));
  const unknown = identifiers.find((identifier) => identifier !== WILDCARD && !known.has(identifier));
  if (unknown !== undefined) {
    throw new ApiError(400, `Unknown MCP privilege: ${unknown}`);
  }
}

/** A token's scope as the API shows it: MCP identifiers as their ids, the wildcard as 0. */
export async function presentScope(auth: AuthService, scope: TokenScope) {
  const scoped = scope.connections !== null || scope.mcp !== null || scope.permissions !== null;
  if (!scoped) {
    return { scoped: false };
  }
  const ids = new Map((await auth.scopes.mcpItems()).map((item) => [item.identifier, item.id]));
  return {
    scoped: true,
    connections: (scope.connections ?? []).map((c) => ({
      connection_id: c.connectionId,
      access_level: c.accessLevel,
    })),
    mcp_privileges: (scope.mcp ?? []).flatMap((identifier) => {
      const id = identifier === WILDCARD ? 0 : ids.get(identifier);
      return id === undefined ? [] : [id];
    }),
    admin_permissions: scope.permissions ?? [],
  };
}

export async function presentConnectionGrants(auth: AuthService, groupId: number) {
  return (await auth.groups.connectionGrants(groupId)).map((grant) => ({
    connection_id: grant.connectionId,
    access_level: grant.accessLevel as AccessLevel,
  }));
}

/** Refuses names that are not admin permissions (the wildcard is one). */
export function requireKnownPermissions(names: string[]): void {
  const unknown = names.find((name) => name !== WILDCARD && !isAdminPermission(name));
  if (unknown !== undefined) {
    throw new ApiError(400, `Invalid permission: ${unknown}`);
  }
}

export async function requireToken(auth: AuthService, id: number): Promise<void> {
  const [row] = await auth.credentials.listServiceTokens([id]);
  if (!row) {
    throw new ApiError(404, "Token not found");
  }
}

/** Service tokens belong to an existing, enabled user. */
export async function requireTokenOwner(auth: AuthService, username: string): Promise<User> {
  const owner = await auth.users.byUsername(username);
  if (!owner) {
    throw new ApiError(404, "User not found");
  }
  if (!owner.enabled) {
    throw new ApiError(400, "The token owner is disabled");
  }
  return owner;
}

type TokenRow = Awaited<ReturnType<AuthService["credentials"]["listServiceTokens"]>>[number];

export async function presentToken(auth: AuthService, row: TokenRow, scope: TokenScope | undefined) {
  const shown = scope ? await presentScope(auth, scope) : { scoped: false };
  return {
    id: row.token.id,
    name: row.token.annotation,
    token_prefix: row.token.tokenHash.slice(0, 12),
    user_id: row.owner.id,
    username: row.owner.username,
    is_service_account: row.owner.isServiceAccount,
    is_superuser: row.owner.isSuperuser,
    expires_at: row.token.expiresAt?.toISOString() ?? null,
    created_at: row.token.createdAt.toISOString(),
    scope: shown.scoped ? shown : null,
  };
}
