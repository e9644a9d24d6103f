import {
  type AccessLevel,
  type AdminPermission,
  ALL_CONNECTIONS,
  higherLevel,
  lowerLevel,
  WILDCARD,
} from "./model.js";
import type { TokenScope } from "./scopes.js";

/** What the API knows about a monitored connection when deciding access to it. */
export interface ConnectionInfo {
  id: number;
  ownerUsername: string | null;
  isShared: boolean;
}

/**
 * The monitored connections, as the authorization layer sees them. The connections module provides
 * the datastore-backed catalog; until a connection is registered there is nothing to see.
 */
export interface ConnectionCatalog {
  get(id: number): Promise<ConnectionInfo | undefined>;
  list(): Promise<ConnectionInfo[]>;
}

export const noConnections: ConnectionCatalog = {
  get: async () => undefined,
  list: async () => [],
};

/** Everything a caller may do, computed once per request. */
export interface EffectivePrivileges {
  username: string;
  isSuperuser: boolean;
  groups: string[];
  /** Admin permissions the caller's groups grant (`*` for all). */
  permissions: ReadonlySet<string>;
  /** MCP identifiers the caller's groups grant (`*` for all). */
  mcp: ReadonlySet<string>;
  /** Connection grants of the caller's groups, merged to the highest level; 0 is every connection. */
  connections: ReadonlyMap<number, AccessLevel>;
  /** The service token's narrowing, if the caller used a scoped token (superusers' too). */
  scope: TokenScope | null;
  /** Connections some group grants by id (those are reachable only through a grant). */
  grantedById: ReadonlySet<number>;
}

export function mergeConnectionGrants(
  grants: { connectionId: number; accessLevel: AccessLevel }[],
): Map<number, AccessLevel> {
  const merged = new Map<number, AccessLevel>();
  for (const grant of grants) {
    merged.set(
      grant.connectionId,
      higherLevel(merged.get(grant.connectionId), grant.accessLevel) as AccessLevel,
    );
  }
  return merged;
}

export function hasPermission(p: EffectivePrivileges, permission: AdminPermission): boolean {
  const granted = p.isSuperuser || p.permissions.has(permission) || p.permissions.has(WILDCARD);
  const scope = p.scope?.permissions;
  return granted && (!scope || scope.includes(permission) || scope.includes(WILDCARD));
}

export function mayUseMcp(
  p: EffectivePrivileges,
  item: { identifier: string; isPublic: boolean } | undefined,
): boolean {
  if (!item) {
    return false;
  }
  const granted = p.isSuperuser || item.isPublic || p.mcp.has(item.identifier) || p.mcp.has(WILDCARD);
  const scope = p.scope?.mcp;
  return granted && (!scope || scope.includes(item.identifier) || scope.includes(WILDCARD));
}

/**
 * The access level a caller has on a connection, or undefined for none.
 * - Superusers: read_write.
 * - A connection some group grants by id: the caller's grant on it or on 0 (the higher level).
 * - Any other connection: the caller's grant on 0, or read_write for its owner and, when shared,
 *   for everyone.
 * A scoped token then caps the result at the scope's level for that connection (or for 0).
 */
export function connectionLevel(
  p: EffectivePrivileges,
  connectionId: number,
  info: ConnectionInfo | undefined,
): AccessLevel | undefined {
  if (!info) {
    return undefined;
  }
  let level: AccessLevel | undefined;
  if (p.isSuperuser) {
    level = "read_write";
  } else if (p.grantedById.has(connectionId)) {
    level = higherLevel(p.connections.get(connectionId), p.connections.get(ALL_CONNECTIONS));
  } else {
    const ownsOrShared = info.isShared || (info.ownerUsername !== null && info.ownerUsername === p.username);
    level = higherLevel(p.connections.get(ALL_CONNECTIONS), ownsOrShared ? "read_write" : undefined);
  }
  const scope = p.scope?.connections;
  if (!level || !scope) {
    return level;
  }
  const scoped = mergeConnectionGrants(scope);
  const cap = higherLevel(scoped.get(connectionId), scoped.get(ALL_CONNECTIONS));
  return cap ? lowerLevel(level, cap) : undefined;
}

/** Grants as the API shows them: superusers hold everything. */
export function describedPrivileges(p: EffectivePrivileges) {
  if (p.isSuperuser) {
    return {
      mcp: [WILDCARD],
      connections: { [String(ALL_CONNECTIONS)]: "read_write" as AccessLevel },
      permissions: [WILDCARD],
    };
  }
  return {
    mcp: [...p.mcp],
    connections: Object.fromEntries([...p.connections].map(([id, level]) => [String(id), level])),
    permissions: [...p.permissions],
  };
}
