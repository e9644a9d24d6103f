import { messages, type RequestAccess } from "./access.js";
import type { EffectivePrivileges } from "./privileges.js";
import type { AuthService } from "./service.js";
import type { NewUser, User, UserChanges } from "./users.js";

/**
 * Users as administrators manage them (manage_users). Superuser accounts are the exception the
 * permission does not cover: creating, changing or deleting one, or changing who is one, needs a
 * superuser, or an administrator could raise themselves. Likewise setting a user's password is
 * taking over the account, so it needs holding everything that user holds.
 */
export class UserAdministration {
  constructor(private readonly auth: AuthService) {}

  list(): Promise<User[]> {
    return this.auth.users.list();
  }

  async create(access: RequestAccess, fields: NewUser): Promise<User> {
    if (fields.isSuperuser) {
      await access.require({ superuser: true });
    }
    return this.auth.users.create(fields);
  }

  async update(access: RequestAccess, id: number, changes: UserChanges): Promise<User> {
    const user = await this.auth.users.require(id);
    if (user.isSuperuser || changes.isSuperuser !== undefined) {
      await access.require({ superuser: true });
    }
    if (changes.password !== undefined) {
      await access.requireHoldsAllOf(await this.sessionPrivileges(user), messages.takeover);
    }
    return this.auth.users.update(id, changes);
  }

  async delete(access: RequestAccess, id: number): Promise<void> {
    const user = await this.auth.users.require(id);
    if (user.isSuperuser) {
      await access.require({ superuser: true });
    }
    await this.auth.users.delete(id);
  }

  /** What the user may do when signed in with a session (no token scope). */
  async privileges(id: number): Promise<{ user: User; privileges: EffectivePrivileges }> {
    const user = await this.auth.users.require(id);
    return { user, privileges: await this.sessionPrivileges(user) };
  }

  private sessionPrivileges(user: User): Promise<EffectivePrivileges> {
    return this.auth.privilegesOf({
      userId: user.id,
      username: user.username,
      isSuperuser: user.isSuperuser,
      credential: { kind: "session" },
    });
  }
}
