import type { AccessRequirement } from "@dbmon/contract";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { Forbidden, NotAuthenticated, NotFound } from "../errors.js";
import type { Caller } from "./credentials.js";
import type { AccessLevel, AdminPermission } from "./model.js";
import {
  type ConnectionInfo,
  connectionLevel,
  type EffectivePrivileges,
  firstLackedGrant,
  type Grants,
  gainedGrants,
  hasPermission,
  holdingNothing,
  mayUseMcp,
  scopeCap,
} from "./privileges.js";
import type { AuthService } from "./service.js";

export const SESSION_COOKIE = "session_token";

export type { AccessRequirement } from "@dbmon/contract";

export type PresentedCredential =
  | { kind: "none" }
  | { kind: "token"; token: string; source: "header" | "cookie" };

/**
 * The credential of a request: a Bearer token, else the session cookie. An Authorization header
 * that is not `Bearer <token>` counts as no credential, and the cookie is then not consulted.
 */
export function presentedCredential(c: Context): PresentedCredential {
  const header = c.req.header("authorization");
  if (header !== undefined) {
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    return token ? { kind: "token", token, source: "header" } : { kind: "none" };
  }
  const cookie = getCookie(c, SESSION_COOKIE);
  return cookie ? { kind: "token", token: cookie, source: "cookie" } : { kind: "none" };
}

export const messages = {
  missing: "Missing or invalid authentication credentials",
  invalid: "Invalid or unknown token",
  superuser: "Permission denied: requires superuser privileges",
  permission: (permission: string) => `Permission denied: requires ${permission} permission`,
  connectionRead: "Permission denied: you do not have access to this connection",
  connectionWrite: "Permission denied: you do not have write access to this connection",
  connectionOwner:
    "Permission denied: you must be the owner or have the manage_connections permission to change this connection",
  connectionNotFound: "Connection not found",
  mcp: (identifier: string) => `Access denied: you do not have permission to use tool '${identifier}'`,
  notHeld: (grant: string) => `Permission denied: you cannot grant ${grant}, which you do not hold yourself`,
  share: "Permission denied: you do not have permission to make connections shared",
  takeover: (grant: string) =>
    `Permission denied: you cannot set the password of a user holding ${grant}, which you do not hold yourself`,
} as const;

export type VisibleConnections = { all: true; ids: number[] } | { all: false; ids: number[] };

/**
 * The caller of one request and what it may do. Nothing is looked up until asked, and every answer
 * is computed at most once per request.
 */
export class RequestAccess {
  private callerLookup: Promise<Caller | undefined> | undefined;
  private privilegesLookup: Promise<EffectivePrivileges> | undefined;
  private readonly connectionLookups = new Map<number, Promise<ConnectionInfo | undefined>>();

  constructor(
    private readonly auth: AuthService,
    readonly credential: PresentedCredential,
  ) {}

  /** The authenticated caller, or undefined (no credential, or one that stands for nobody). */
  caller(): Promise<Caller | undefined> {
    this.callerLookup ??=
      this.credential.kind === "token"
        ? this.auth.credentials.resolve(this.credential.token)
        : Promise.resolve(undefined);
    return this.callerLookup;
  }

  /** The caller, or 401 with the reference's message. */
  async requireCaller(): Promise<Caller> {
    const caller = await this.caller();
    if (!caller) {
      throw new NotAuthenticated(this.credential.kind === "none" ? messages.missing : messages.invalid);
    }
    return caller;
  }

  async privileges(): Promise<EffectivePrivileges> {
    this.privilegesLookup ??= this.requireCaller().then((caller) => this.auth.privilegesOf(caller));
    return this.privilegesLookup;
  }

  /**
   * Whether the caller acts as a superuser: a superuser's session, or a superuser's token without a
   * scope. A scope narrows a superuser's token like anyone's (docs/auth.md), so a scoped token never
   * takes the superuser shortcuts.
   */
  async isSuperuser(): Promise<boolean> {
    const privileges = await this.privileges();
    return privileges.isSuperuser && privileges.scope === null;
  }

  async hasPermission(permission: AdminPermission): Promise<boolean> {
    return hasPermission(await this.privileges(), permission);
  }

  async mayUseMcp(identifier: string): Promise<boolean> {
    const [privileges, items] = await Promise.all([this.privileges(), this.auth.scopes.mcpItems()]);
    return mayUseMcp(
      privileges,
      items.find((item) => item.identifier === identifier),
    );
  }

  /** What the catalog knows of a connection, looked up once per request. */
  private connection(connectionId: number): Promise<ConnectionInfo | undefined> {
    let lookup = this.connectionLookups.get(connectionId);
    if (!lookup) {
      lookup = this.auth.connections.get(connectionId);
      this.connectionLookups.set(connectionId, lookup);
    }
    return lookup;
  }

  /** The caller's access level on a connection, or undefined for none (unknown connections too). */
  async connectionLevel(connectionId: number): Promise<AccessLevel | undefined> {
    const [privileges, info] = await Promise.all([this.privileges(), this.connection(connectionId)]);
    return connectionLevel(privileges, connectionId, info);
  }

  /** The connections the caller can see (read or better); `all` when nothing is hidden. */
  async visibleConnections(): Promise<VisibleConnections> {
    const [privileges, connections] = await Promise.all([this.privileges(), this.auth.connections.list()]);
    const ids = connections
      .filter((info) => connectionLevel(privileges, info.id, info) !== undefined)
      .map((info) => info.id);
    return { all: ids.length === connections.length, ids };
  }

  /**
   * May change or delete the connection: its owner holding read_write on it, or a holder of
   * manage_connections (superusers included); either way only with a credential whose scope allows
   * read_write on it, so a token scoped to read a connection never changes it.
   */
  async mayManageConnection(connectionId: number): Promise<boolean> {
    const [caller, privileges, info] = await Promise.all([
      this.requireCaller(),
      this.privileges(),
      this.connection(connectionId),
    ]);
    if (scopeCap(privileges, connectionId) !== "read_write") {
      return false;
    }
    if (
      info?.ownerUsername === caller.username &&
      (await this.connectionLevel(connectionId)) === "read_write"
    ) {
      return true;
    }
    return this.hasPermission("manage_connections");
  }

  /**
   * Refuses (403) to share a connection unless the caller may (manage_connections, as the reference)
   * and holds read_write on it: sharing grants read_write on it to everyone (D17).
   */
  async requireMayShareConnection(connectionId: number): Promise<void> {
    if (!(await this.hasPermission("manage_connections"))) {
      throw new Forbidden(messages.share);
    }
    await this.requireHolds({
      permissions: [],
      mcp: [],
      connections: [{ connectionId, accessLevel: "read_write" }],
    });
  }

  /**
   * Refuses (403) grants the caller does not hold itself: a caller can never grant what it lacks.
   * Unscoped superusers hold everything. `refusal` words the refusal from the first grant lacked.
   */
  async requireHolds(grants: Grants, refusal: (grant: string) => string = messages.notHeld): Promise<void> {
    if (await this.isSuperuser()) {
      return;
    }
    const [privileges, connections, items] = await Promise.all([
      this.privileges(),
      this.connectionMap(),
      this.auth.scopes.mcpItems(),
    ]);
    const lacked = firstLackedGrant(privileges, grants, connections, items);
    if (lacked !== undefined) {
      throw new Forbidden(refusal(lacked));
    }
  }

  /** Refuses (403) a change that gives a credential (`before` → `after`) what the caller does not hold. */
  async requireHoldsGain(
    before: EffectivePrivileges,
    after: EffectivePrivileges,
    refusal: (grant: string) => string = messages.notHeld,
  ): Promise<void> {
    if (await this.isSuperuser()) {
      return;
    }
    const [connections, items] = await Promise.all([this.connectionMap(), this.auth.scopes.mcpItems()]);
    await this.requireHolds(gainedGrants(before, after, connections, items), refusal);
  }

  /**
   * Refuses (403) to hand the caller another user's credentials (a token of theirs, their password)
   * unless the caller holds everything that user holds: acting as them would gain the rest.
   */
  async requireHoldsAllOf(
    held: EffectivePrivileges,
    refusal: (grant: string) => string = messages.notHeld,
  ): Promise<void> {
    await this.requireHoldsGain(holdingNothing(held), held, refusal);
  }

  private async connectionMap(): Promise<ReadonlyMap<number, ConnectionInfo>> {
    return new Map((await this.auth.connections.list()).map((info) => [info.id, info]));
  }

  /** Refuses (401, then 404 for an unknown connection, then 403) unless the requirement is met. */
  async require(requirement: AccessRequirement, connectionId?: number): Promise<void> {
    await this.requireCaller();
    if (requirement.superuser && !(await this.isSuperuser())) {
      throw new Forbidden(requirement.message ?? messages.superuser);
    }
    if (requirement.permission && !(await this.hasPermission(requirement.permission))) {
      throw new Forbidden(requirement.message ?? messages.permission(requirement.permission));
    }
    if (requirement.mcp && !(await this.mayUseMcp(requirement.mcp))) {
      throw new Forbidden(requirement.message ?? messages.mcp(requirement.mcp));
    }
    if (requirement.connection || requirement.connectionOwner) {
      // Unknown connections are 404 for everyone (D5), before any access decision.
      if (connectionId === undefined || !(await this.connection(connectionId))) {
        throw new NotFound(messages.connectionNotFound);
      }
    }
    if (
      requirement.connectionOwner &&
      connectionId !== undefined &&
      !(await this.mayManageConnection(connectionId))
    ) {
      throw new Forbidden(requirement.message ?? messages.connectionOwner);
    }
    if (requirement.connection && connectionId !== undefined) {
      const level = await this.connectionLevel(connectionId);
      const wanted = requirement.connection.level;
      if (!level || (wanted === "read_write" && level !== "read_write")) {
        throw new Forbidden(
          requirement.message ??
            (wanted === "read_write" ? messages.connectionWrite : messages.connectionRead),
        );
      }
    }
  }
}
