import type { Clock } from "../clock.js";
import { InvalidInput, NotFound } from "../errors.js";
import type { RequestAccess } from "./access.js";
import type { Caller, CredentialStore, IssuedToken } from "./credentials.js";
import { parseExpiry } from "./expiry.js";
import { type AccessLevel, requireKnownPermissions, WILDCARD } from "./model.js";
import type { EffectivePrivileges } from "./privileges.js";
import { isScoped, type ScopeStore, type TokenScope, unscoped } from "./scopes.js";
import type { User, UserDirectory } from "./users.js";

/** A scope as administrators see it: MCP items by their ids, the wildcard as 0. */
export interface ResolvedScope {
  connections: { connectionId: number; accessLevel: AccessLevel }[];
  mcpIds: number[];
  permissions: string[];
}

type TokenWithOwner = Awaited<ReturnType<CredentialStore["listServiceTokens"]>>[number];

/** A service token with its owner and its scope (null when it is not scoped). */
export type ServiceToken = TokenWithOwner & { scope: ResolvedScope | null };

export interface NewServiceToken {
  ownerUsername: string;
  annotation: string;
  /** `<n>h`, `<n>d`, … or never (see parseExpiry). */
  expiresIn: string | undefined;
}

/** Service tokens and their scopes, as administrators manage them (manage_token_scopes). */
export class TokenAdministration {
  constructor(
    private readonly users: UserDirectory,
    private readonly credentials: CredentialStore,
    private readonly scopes: ScopeStore,
    private readonly clock: Clock,
    /** What a credential may do (the token's owner's grants, narrowed by its scope). */
    private readonly privilegesOf: (caller: Caller) => Promise<EffectivePrivileges>,
  ) {}

  /** Every service token, newest first, with owners and scopes (a fixed number of queries). */
  async list(): Promise<ServiceToken[]> {
    const rows = await this.credentials.listServiceTokens();
    const [scopes, mcpIds] = await Promise.all([
      this.scopes.scopesOf(rows.map((row) => row.token.id)),
      this.mcpIds(),
    ]);
    return rows.map((row) => ({ ...row, scope: resolveScope(scopes.get(row.token.id), mcpIds) }));
  }

  /**
   * Issues a token to an existing, enabled user. A token of a superuser is a superuser credential:
   * only superusers hand those out; a token of anyone else only a caller holding all its owner holds.
   */
  async create(
    access: RequestAccess,
    request: NewServiceToken,
  ): Promise<{ issued: IssuedToken; owner: User }> {
    const expiry = parseExpiry(request.expiresIn, this.clock.now());
    if ("problem" in expiry) {
      throw new InvalidInput(`Invalid expires_in: ${expiry.problem}`);
    }
    const owner = await this.users.byUsername(request.ownerUsername);
    if (!owner) {
      throw new NotFound("User not found");
    }
    if (!owner.enabled) {
      throw new InvalidInput("The token owner is disabled");
    }
    if (owner.isSuperuser) {
      await access.require({ superuser: true });
    }
    // A token acts with its owner's privileges: issuing one hands them to the caller.
    const owned = await this.privilegesOf({
      userId: owner.id,
      username: owner.username,
      isSuperuser: owner.isSuperuser,
      credential: { kind: "session" },
    });
    await access.requireHoldsAllOf(owned);
    const issued = await this.credentials.issueServiceToken(owner, request.annotation, expiry.expiresAt);
    return { issued, owner };
  }

  async delete(id: number): Promise<void> {
    if (!(await this.credentials.revokeServiceToken(id))) {
      throw new NotFound("Token not found");
    }
  }

  /** The token's scope, or null when it is not scoped. */
  async scope(id: number): Promise<ResolvedScope | null> {
    await this.require(id);
    const [scope, mcpIds] = await Promise.all([this.scopes.scopeOf(id), this.mcpIds()]);
    return resolveScope(scope, mcpIds);
  }

  /**
   * Replaces the parts of the scope given. Unknown names are refused, not dropped: dropping the
   * only entry would lift the narrowing.
   */
  async setScope(access: RequestAccess, id: number, scope: Partial<TokenScope>): Promise<void> {
    const token = await this.require(id);
    await this.scopes.requireKnownMcpItems(scope.mcp ?? []);
    requireKnownPermissions(scope.permissions ?? []);
    await this.requireNoWidening(access, token, scope);
    await this.scopes.setScope(id, scope);
  }

  /** Lifts the whole scope: the token then acts with all its owner's privileges. */
  async clearScope(access: RequestAccess, id: number): Promise<void> {
    const token = await this.require(id);
    await this.requireNoWidening(access, token, { connections: [], mcp: [], permissions: [] });
    await this.scopes.clearScope(id);
  }

  /**
   * A caller never widens a token (its own or another's) beyond what it holds itself: whatever the
   * token may do after the change and could not before, the caller must hold.
   */
  private async requireNoWidening(
    access: RequestAccess,
    token: TokenWithOwner,
    change: Partial<TokenScope>,
  ): Promise<void> {
    const before = await this.privilegesOf({
      userId: token.owner.id,
      username: token.owner.username,
      isSuperuser: token.owner.isSuperuser,
      credential: { kind: "service_token", tokenId: token.token.id },
    });
    const dimension = <T>(given: T[] | null | undefined, stored: T[] | null): T[] | null =>
      given === undefined ? stored : given && given.length > 0 ? given : null;
    const stored = before.scope ?? unscoped;
    const scope: TokenScope = {
      connections: dimension(change.connections, stored.connections),
      mcp: dimension(change.mcp, stored.mcp),
      permissions: dimension(change.permissions, stored.permissions),
    };
    await access.requireHoldsGain(before, { ...before, scope: isScoped(scope) ? scope : null });
  }

  private async require(id: number): Promise<TokenWithOwner> {
    const [row] = await this.credentials.listServiceTokens([id]);
    if (!row) {
      throw new NotFound("Token not found");
    }
    return row;
  }

  private async mcpIds(): Promise<Map<string, number>> {
    return new Map((await this.scopes.mcpItems()).map((item) => [item.identifier, item.id]));
  }
}

function resolveScope(scope: TokenScope | undefined, mcpIds: Map<string, number>): ResolvedScope | null {
  if (!scope || !isScoped(scope)) {
    return null;
  }
  return {
    connections: scope.connections ?? [],
    mcpIds: (scope.mcp ?? []).flatMap((identifier) => {
      const id = identifier === WILDCARD ? 0 : mcpIds.get(identifier);
      return id === undefined ? [] : [id];
    }),
    permissions: scope.permissions ?? [],
  };
}
