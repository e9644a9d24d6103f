import type { UserCreateRequest, UserUpdateRequest } from "@dbmon/contract";
import { type Datastore, schema } from "@dbmon/datastore";
import { asc, eq, sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import { Conflict, InvalidInput, NotFound } from "../errors.js";
import { hashPassword, passwordProblem } from "./secrets.js";

const { users, sessions } = schema;

export type User = typeof users.$inferSelect;

/** Changes to a user's fields; what is not given stays. */
export interface UserChanges {
  /** A new password, in clear text (it is hashed here); ends the user's sessions. */
  password?: string | undefined;
  displayName?: string | undefined;
  email?: string | undefined;
  annotation?: string | undefined;
  /** false ends the user's sessions. */
  enabled?: boolean | undefined;
  isSuperuser?: boolean | undefined;
}

/** A new user's fields: a password unless it is a service account. */
export interface NewUser extends UserChanges {
  username: string;
  isServiceAccount?: boolean | undefined;
}

/** A create-user body read as a new user. */
export function newUserOf(body: UserCreateRequest): NewUser {
  return { ...userChangesOf(body), username: body.username, isServiceAccount: body.is_service_account };
}

/** An update-user body read as changes. */
export function userChangesOf(body: UserUpdateRequest): UserChanges {
  return {
    password: body.password,
    displayName: body.display_name,
    email: body.email,
    annotation: body.annotation,
    enabled: body.enabled,
    isSuperuser: body.is_superuser,
  };
}

/** The columns the given fields set (undefined: not given, so unchanged or the column's default). */
function userColumns(fields: UserChanges) {
  return {
    displayName: fields.displayName,
    email: fields.email,
    annotation: fields.annotation,
    enabled: fields.enabled,
    isSuperuser: fields.isSuperuser,
  };
}

const USERNAME = /^[\p{L}\p{N}][\p{L}\p{N}_.@-]{0,127}$/u;

/** Users and their passwords; every change that must end sessions ends them here. */
export class UserDirectory {
  constructor(
    private readonly datastore: Datastore,
    private readonly clock: Clock,
    private readonly commonPasswords: ReadonlySet<string>,
  ) {}

  /** The policy's refusal for a password, or null when it is acceptable. */
  passwordProblem(password: string): string | null {
    return passwordProblem(password, this.commonPasswords);
  }

  async list(): Promise<User[]> {
    return this.datastore.db.select().from(users).orderBy(asc(users.username));
  }

  async count(): Promise<number> {
    const [row] = await this.datastore.db.select({ n: sql<number>`count(*)::int` }).from(users);
    return row?.n ?? 0;
  }

  async byId(id: number): Promise<User | undefined> {
    const [row] = await this.datastore.db.select().from(users).where(eq(users.id, id));
    return row;
  }

  /** The user, or NotFound. */
  async require(id: number): Promise<User> {
    const user = await this.byId(id);
    if (!user) {
      throw new NotFound("User not found");
    }
    return user;
  }

  async byUsername(username: string): Promise<User | undefined> {
    const [row] = await this.datastore.db.select().from(users).where(eq(users.username, username));
    return row;
  }

  async create(input: NewUser): Promise<User> {
    if (!USERNAME.test(input.username)) {
      throw new InvalidInput(
        "Invalid username: use 1 to 128 letters, digits, '_', '.', '@' or '-', starting with a letter or digit",
      );
    }
    let passwordHash: string | null = null;
    if (!input.isServiceAccount || input.password) {
      if (!input.password) {
        throw new InvalidInput("Password is required");
      }
      passwordHash = await this.checkedHash(input.password);
    }
    const [row] = await this.datastore.db
      .insert(users)
      .values({
        ...userColumns(input),
        username: input.username,
        passwordHash,
        isServiceAccount: input.isServiceAccount,
      })
      .onConflictDoNothing({ target: users.username })
      .returning();
    if (!row) {
      throw new Conflict("A user with this username already exists");
    }
    return row;
  }

  /** Applies the changes at once; a new password or disabling ends the user's sessions. */
  async update(id: number, changes: UserChanges): Promise<User> {
    const passwordHash =
      changes.password === undefined ? undefined : await this.checkedHash(changes.password);
    const columns = {
      ...userColumns(changes),
      passwordHash,
      // Re-enabling an account (after a lockout, say) gives it a fresh count.
      ...(changes.enabled === true ? { failedAttempts: 0 } : {}),
    };
    return this.datastore.db.transaction(async (tx) => {
      // An update that changes nothing answers with the user as it is.
      const [row] = Object.values(columns).some((value) => value !== undefined)
        ? await tx.update(users).set(columns).where(eq(users.id, id)).returning()
        : await tx.select().from(users).where(eq(users.id, id));
      if (!row) {
        throw new NotFound("User not found");
      }
      if (passwordHash !== undefined || changes.enabled === false) {
        await tx.delete(sessions).where(eq(sessions.userId, id));
      }
      return row;
    });
  }

  /** Deletes a user; sessions, tokens, scopes and memberships go with it (cascades). */
  async delete(id: number): Promise<boolean> {
    const deleted = await this.datastore.db.delete(users).where(eq(users.id, id)).returning({ id: users.id });
    return deleted.length > 0;
  }

  async recordLogin(id: number): Promise<void> {
    await this.datastore.db
      .update(users)
      .set({ lastLogin: this.clock.now(), failedAttempts: 0 })
      .where(eq(users.id, id));
  }

  /**
   * Counts a wrong password; at `lockoutAfter` consecutive failures (0 = never) the account is
   * disabled and its sessions end. Returns whether this failure locked it.
   */
  async recordFailedPassword(id: number, lockoutAfter: number): Promise<boolean> {
    return this.datastore.db.transaction(async (tx) => {
      const [row] = await tx
        .update(users)
        .set({ failedAttempts: sql`${users.failedAttempts} + 1` })
        .where(eq(users.id, id))
        .returning({ failedAttempts: users.failedAttempts });
      if (!row || lockoutAfter <= 0 || row.failedAttempts < lockoutAfter) {
        return false;
      }
      await tx.update(users).set({ enabled: false }).where(eq(users.id, id));
      await tx.delete(sessions).where(eq(sessions.userId, id));
      return true;
    });
  }

  private async checkedHash(password: string): Promise<string> {
    const problem = this.passwordProblem(password);
    if (problem) {
      throw new InvalidInput(problem);
    }
    return hashPassword(password);
  }
}

/** A user as the API and the command line show it (never the password hash). */
export function presentUser(user: User) {
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    email: user.email,
    annotation: user.annotation,
    enabled: user.enabled,
    is_superuser: user.isSuperuser,
    is_service_account: user.isServiceAccount,
  };
}
