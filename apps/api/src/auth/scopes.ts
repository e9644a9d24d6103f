import { type Datastore, schema } from "@dbmon/datastore";
import { asc, eq, inArray, sql } from "drizzle-orm";
import { InvalidInput } from "../errors.js";
import { type AccessLevel, type McpItem, WILDCARD } from "./model.js";

const { tokenConnectionScopes, tokenMcpScopes, tokenAdminScopes, mcpPrivilegeIdentifiers } = schema;

/** How a service token is narrowed; `null` leaves that dimension as the owner's privileges. */
export interface TokenScope {
  connections: { connectionId: number; accessLevel: AccessLevel }[] | null;
  mcp: string[] | null;
  permissions: string[] | null;
}

export const unscoped: TokenScope = { connections: null, mcp: null, permissions: null };

export function isScoped(scope: TokenScope): boolean {
  return scope.connections !== null || scope.mcp !== null || scope.permissions !== null;
}

export type RegisteredMcpItem = typeof mcpPrivilegeIdentifiers.$inferSelect;

/** Token scopes and the registry of MCP items they and group grants refer to. */
export class ScopeStore {
  constructor(private readonly datastore: Datastore) {}

  async scopesOf(tokenIds: number[]): Promise<Map<number, TokenScope>> {
    const result = new Map<number, TokenScope>(tokenIds.map((id) => [id, { ...unscoped }]));
    if (tokenIds.length === 0) {
      return result;
    }
    const db = this.datastore.db;
    const [connections, mcp, permissions] = await Promise.all([
      db.select().from(tokenConnectionScopes).where(inArray(tokenConnectionScopes.tokenId, tokenIds)),
      db.select().from(tokenMcpScopes).where(inArray(tokenMcpScopes.tokenId, tokenIds)),
      db.select().from(tokenAdminScopes).where(inArray(tokenAdminScopes.tokenId, tokenIds)),
    ]);
    for (const row of connections) {
      const scope = result.get(row.tokenId) as TokenScope;
      scope.connections = [
        ...(scope.connections ?? []),
        { connectionId: row.connectionId, accessLevel: row.accessLevel as AccessLevel },
      ];
    }
    for (const row of mcp) {
      const scope = result.get(row.tokenId) as TokenScope;
      scope.mcp = [...(scope.mcp ?? []), row.identifier];
    }
    for (const row of permissions) {
      const scope = result.get(row.tokenId) as TokenScope;
      scope.permissions = [...(scope.permissions ?? []), row.permission];
    }
    for (const scope of result.values()) {
      scope.connections?.sort((a, b) => a.connectionId - b.connectionId);
      scope.mcp?.sort();
      scope.permissions?.sort();
    }
    return result;
  }

  async scopeOf(tokenId: number): Promise<TokenScope> {
    return (await this.scopesOf([tokenId])).get(tokenId) ?? { ...unscoped };
  }

  /** Replaces the dimensions given (an empty list lifts that dimension's narrowing). */
  async setScope(tokenId: number, scope: Partial<TokenScope>): Promise<void> {
    await this.datastore.db.transaction(async (tx) => {
      if (scope.connections !== undefined) {
        await tx.delete(tokenConnectionScopes).where(eq(tokenConnectionScopes.tokenId, tokenId));
        const byConnection = new Map((scope.connections ?? []).map((c) => [c.connectionId, c.accessLevel]));
        if (byConnection.size > 0) {
          await tx.insert(tokenConnectionScopes).values(
            [...byConnection].map(([connectionId, accessLevel]) => ({
              tokenId,
              connectionId,
              accessLevel,
            })),
          );
        }
      }
      if (scope.mcp !== undefined) {
        await tx.delete(tokenMcpScopes).where(eq(tokenMcpScopes.tokenId, tokenId));
        const kept = wildcardAlone(scope.mcp ?? []);
        if (kept.length > 0) {
          await tx.insert(tokenMcpScopes).values(kept.map((identifier) => ({ tokenId, identifier })));
        }
      }
      if (scope.permissions !== undefined) {
        await tx.delete(tokenAdminScopes).where(eq(tokenAdminScopes.tokenId, tokenId));
        const kept = wildcardAlone(scope.permissions ?? []);
        if (kept.length > 0) {
          await tx.insert(tokenAdminScopes).values(kept.map((permission) => ({ tokenId, permission })));
        }
      }
    });
  }

  async clearScope(tokenId: number): Promise<void> {
    await this.setScope(tokenId, { connections: null, mcp: null, permissions: null });
  }

  /** Registers (or refreshes) the MCP items this build serves; run at every start-up. */
  async registerMcpItems(items: readonly McpItem[]): Promise<void> {
    if (items.length === 0) {
      return;
    }
    await this.datastore.db
      .insert(mcpPrivilegeIdentifiers)
      .values(items.map((item) => ({ ...item })))
      .onConflictDoUpdate({
        target: mcpPrivilegeIdentifiers.identifier,
        set: {
          itemType: sql`excluded.item_type`,
          description: sql`excluded.description`,
          isPublic: sql`excluded.is_public`,
        },
      });
  }

  async mcpItems(): Promise<RegisteredMcpItem[]> {
    return this.datastore.db
      .select()
      .from(mcpPrivilegeIdentifiers)
      .orderBy(asc(mcpPrivilegeIdentifiers.itemType), asc(mcpPrivilegeIdentifiers.identifier));
  }

  /** Refuses MCP identifiers that are not registered (the wildcard is always known). */
  async requireKnownMcpItems(identifiers: readonly string[]): Promise<void> {
    if (identifiers.length === 0) {
      return;
    }
    const known = new Set((await this.mcpItems()).map((item) => item.identifier));
    const unknown = identifiers.find((identifier) => identifier !== WILDCARD && !known.has(identifier));
    if (unknown !== undefined) {
      throw new InvalidInput(`Unknown MCP privilege: ${unknown}`);
    }
  }
}

function wildcardAlone(names: string[]): string[] {
  return names.includes(WILDCARD) ? [WILDCARD] : [...new Set(names)];
}
