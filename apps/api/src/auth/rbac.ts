import type { Clock } from "../clock.js";
import { GroupAdministration } from "./group-administration.js";
import type { RegisteredMcpItem, ScopeStore } from "./scopes.js";
import type { AuthService } from "./service.js";
import { TokenAdministration } from "./token-administration.js";
import { UserAdministration } from "./user-administration.js";

/** Role-based access control as the RBAC operations administer it: users, groups and tokens. */
export class RbacAdministration {
  readonly users: UserAdministration;
  readonly groups: GroupAdministration;
  readonly tokens: TokenAdministration;
  private readonly scopes: ScopeStore;

  constructor(auth: AuthService, clock: Clock) {
    this.users = new UserAdministration(auth);
    this.groups = new GroupAdministration(auth.groups, auth.scopes);
    this.tokens = new TokenAdministration(auth.users, auth.credentials, auth.scopes, clock, (caller) =>
      auth.privilegesOf(caller),
    );
    this.scopes = auth.scopes;
  }

  /** Every registered MCP tool, resource and prompt that groups and tokens can be granted. */
  mcpItems(): Promise<RegisteredMcpItem[]> {
    return this.scopes.mcpItems();
  }
}
