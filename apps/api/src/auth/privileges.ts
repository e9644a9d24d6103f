import {
  type AccessLevel,
  type AdminPermission,
  ALL_CONNECTIONS,
  adminPermissions,
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
  return capped(level, scopeCap(p, connectionId));
}

/**
 * The most a token's scope allows on a connection (on every connection for 0), whatever its owner
 * holds: read_write when the token's connections are not narrowed, undefined when it may not reach it.
 */
export function scopeCap(p: EffectivePrivileges, connectionId: number): AccessLevel | undefined {
  const scope = p.scope?.connections;
  if (!scope) {
    return "read_write";
  }
  const scoped = mergeConnectionGrants(scope);
  return higherLevel(scoped.get(connectionId), scoped.get(ALL_CONNECTIONS));
}

function capped(level: AccessLevel | undefined, cap: AccessLevel | undefined): AccessLevel | undefined {
  return level && cap ? lowerLevel(level, cap) : undefined;
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

/** Grants one may hand out: admin permissions, MCP items and connection levels (0: every connection). */
export interface Grants {
  permissions: readonly string[];
  mcp: readonly string[];
  connections: readonly { connectionId: number; accessLevel: AccessLevel }[];
}

type McpItemFacts = { identifier: string; isPublic: boolean };

function atLeast(held: AccessLevel | undefined, wanted: AccessLevel): boolean {
  return wanted === "read" ? held !== undefined : held === "read_write";
}

/** The level a caller has on every connection at once (a grant on 0), scope included. */
function levelOnEveryConnection(p: EffectivePrivileges): AccessLevel | undefined {
  return capped(
    p.isSuperuser ? "read_write" : p.connections.get(ALL_CONNECTIONS),
    scopeCap(p, ALL_CONNECTIONS),
  );
}

/**
 * The first of `grants` the caller does not hold itself, described for a refusal; undefined when it
 * holds them all. A wildcard is held only by who holds everything it stands for.
 */
export function firstLackedGrant(
  p: EffectivePrivileges,
  grants: Grants,
  connections: ReadonlyMap<number, ConnectionInfo>,
  mcpItems: readonly McpItemFacts[],
): string | undefined {
  for (const name of grants.permissions) {
    const names = name === WILDCARD ? adminPermissions : [name as AdminPermission];
    if (!names.every((permission) => hasPermission(p, permission))) {
      return `admin permission ${name}`;
    }
  }
  for (const identifier of grants.mcp) {
    const items =
      identifier === WILDCARD ? mcpItems : mcpItems.filter((item) => item.identifier === identifier);
    if (items.length === 0 || !items.every((item) => mayUseMcp(p, item))) {
      return `MCP privilege ${identifier}`;
    }
  }
  for (const { connectionId, accessLevel } of grants.connections) {
    // What one holds on every connection, one holds on each, even on an id not registered yet.
    const held = higherLevel(
      levelOnEveryConnection(p),
      connectionId === ALL_CONNECTIONS
        ? undefined
        : connectionLevel(p, connectionId, connections.get(connectionId)),
    );
    if (!atLeast(held, accessLevel)) {
      return connectionId === ALL_CONNECTIONS
        ? `${accessLevel} on every connection`
        : `${accessLevel} on connection ${connectionId}`;
    }
  }
  return undefined;
}

/** What a credential holds with `after` privileges that it did not with `before`. */
export function gainedGrants(
  before: EffectivePrivileges,
  after: EffectivePrivileges,
  connections: ReadonlyMap<number, ConnectionInfo>,
  mcpItems: readonly McpItemFacts[],
): Grants {
  const gainedLevel = (was: AccessLevel | undefined, is: AccessLevel | undefined) =>
    is !== undefined && !atLeast(was, is);
  const gainedConnections = [...connections.values()].flatMap((info) => {
    const is = connectionLevel(after, info.id, info);
    return is && gainedLevel(connectionLevel(before, info.id, info), is)
      ? [{ connectionId: info.id, accessLevel: is }]
      : [];
  });
  const everyConnection = levelOnEveryConnection(after);
  if (everyConnection && gainedLevel(levelOnEveryConnection(before), everyConnection)) {
    gainedConnections.push({ connectionId: ALL_CONNECTIONS, accessLevel: everyConnection });
  }
  return {
    permissions: adminPermissions.filter(
      (permission) => hasPermission(after, permission) && !hasPermission(before, permission),
    ),
    mcp: mcpItems
      .filter((item) => mayUseMcp(after, item) && !mayUseMcp(before, item))
      .map((item) => item.identifier),
    connections: gainedConnections,
  };
}

/**
 * What a credential standing for no one holds: the start of the gain of taking over `held`'s
 * credentials (which connections some group grants by id is a fact of the estate, not of a holder).
 */
export function holdingNothing(held: EffectivePrivileges): EffectivePrivileges {
  return {
    username: "",
    isSuperuser: false,
    groups: [],
    permissions: new Set(),
    mcp: new Set(),
    connections: new Map(),
    scope: null,
    grantedById: held.grantedById,
  };
}
