import type { Datastore } from "@dbmon/datastore";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { NotAuthenticated, TooManyRequests } from "../errors.js";
import type { AccessCache } from "./access-cache.js";
import { addressBlock, trustedProxyMatcher } from "./client-address.js";
import { type Caller, CredentialStore, type IssuedSession } from "./credentials.js";
import { GroupDirectory } from "./groups.js";
import { mcpItems as builtInMcpItems, type McpItem } from "./model.js";
import {
  type ConnectionCatalog,
  type EffectivePrivileges,
  mergeConnectionGrants,
  noConnections,
} from "./privileges.js";
import { ScopeStore } from "./scopes.js";
import { loadCommonPasswords, verifyPassword } from "./secrets.js";
import { LoginThrottle } from "./throttle.js";
import { UserDirectory } from "./users.js";

export interface AuthServiceOptions {
  datastore: Datastore;
  clock: Clock;
  config: Pick<Config, "trustedProxies" | "loginThrottle" | "lockoutAfterFailedAttempts">;
  /** Access facts kept in memory; the connection catalog should share it. */
  cache: AccessCache;
  connections?: ConnectionCatalog;
}

const MINUTE_MS = 60_000;

/** Users, groups, credentials and privileges: the one place authentication state is read or changed. */
export class AuthService {
  readonly users: UserDirectory;
  readonly groups: GroupDirectory;
  readonly credentials: CredentialStore;
  readonly scopes: ScopeStore;
  readonly throttle: LoginThrottle;
  readonly connections: ConnectionCatalog;
  readonly isTrustedProxy: (address: string) => boolean;
  readonly cache: AccessCache;

  constructor(private readonly options: AuthServiceOptions) {
    const { datastore, clock } = options;
    this.users = new UserDirectory(datastore, clock, loadCommonPasswords());
    this.groups = new GroupDirectory(datastore);
    this.cache = options.cache;
    this.credentials = new CredentialStore(datastore, clock, options.cache);
    this.scopes = new ScopeStore(datastore);
    this.throttle = new LoginThrottle(datastore, clock);
    this.connections = options.connections ?? noConnections;
    this.isTrustedProxy = trustedProxyMatcher(options.config.trustedProxies);
  }

  /** Registers the MCP items that can be granted (run at start-up). */
  registerMcpItems(items: readonly McpItem[] = builtInMcpItems): Promise<void> {
    return this.scopes.registerMcpItems(items);
  }

  /**
   * Checks a login in the reference's order: the per-address request limit, then the per-address
   * failure limit, then the credentials. Unknown users cost one password check like known ones.
   */
  async login(username: string, password: string, clientAddress: string): Promise<IssuedSession> {
    const limits = this.options.config.loginThrottle;
    const subject = addressBlock(clientAddress);
    const requests = await this.throttle.hit(`requests:${subject}`, MINUTE_MS);
    if (requests > limits.requestsPerMinute) {
      throw new TooManyRequests("Too many login requests, please try again later", secondsOf(MINUTE_MS));
    }
    const failuresKey = `failures:${subject}`;
    if ((await this.throttle.peek(failuresKey, limits.failureWindowMs)) >= limits.maxFailedAttempts) {
      throw new TooManyRequests(
        "Too many failed authentication attempts, please try again later",
        secondsOf(limits.failureWindowMs),
      );
    }
    const user = await this.users.byUsername(username);
    const passwordOk = await verifyPassword(user?.passwordHash ?? null, password);
    if (!user || !passwordOk || !user.enabled || user.isServiceAccount) {
      await this.throttle.hit(failuresKey, limits.failureWindowMs);
      if (user?.enabled && !passwordOk && !user.isServiceAccount) {
        await this.users.recordFailedPassword(user.id, this.options.config.lockoutAfterFailedAttempts);
      }
      throw new NotAuthenticated("Authentication failed: invalid username or password");
    }
    await this.throttle.reset(failuresKey);
    await this.users.recordLogin(user.id);
    return this.credentials.startSession(user.id);
  }

  /**
   * Everything the caller may do: group grants (nested groups included) and the token's scope.
   * Remembered briefly per user and credential (see AccessCache).
   */
  privilegesOf(caller: Caller): Promise<EffectivePrivileges> {
    const credential = caller.credential.kind === "service_token" ? caller.credential.tokenId : "session";
    return this.cache.privileges.get(`${caller.userId}:${credential}`, () => this.lookupPrivileges(caller));
  }

  private async lookupPrivileges(caller: Caller): Promise<EffectivePrivileges> {
    const groups = await this.groups.groupsOfUser(caller.userId);
    const [grants, grantedById, scope] = await Promise.all([
      this.groups.grantsOf(groups.map((group) => group.id)),
      this.groups.connectionsGrantedById(),
      caller.credential.kind === "service_token" ? this.scopes.scopeOf(caller.credential.tokenId) : null,
    ]);
    return {
      username: caller.username,
      isSuperuser: caller.isSuperuser,
      groups: groups.map((group) => group.name),
      permissions: new Set(grants.permissions),
      mcp: new Set(grants.mcp),
      connections: mergeConnectionGrants(grants.connections),
      scope: scope && (scope.connections || scope.mcp || scope.permissions) ? scope : null,
      grantedById,
    };
  }
}

/** A throttle window in whole seconds, as Retry-After gives it: the longest a caller has to wait. */
function secondsOf(ms: number): number {
  return Math.ceil(ms / 1000);
}
