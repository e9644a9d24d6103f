import { type Datastore, schema } from "@dbmon/datastore";
import { and, desc, eq, inArray, lte, notInArray } from "drizzle-orm";
import type { Clock } from "../clock.js";
import type { AccessCache } from "./access-cache.js";
import { generateToken, hashToken } from "./secrets.js";
import type { User } from "./users.js";

const { sessions, serviceTokens, users } = schema;

export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const MAX_SESSIONS_PER_USER = 10;

/** Who a valid credential belongs to. */
export interface Caller {
  userId: number;
  username: string;
  isSuperuser: boolean;
  /** The user's display name and notes, which the chat tells the model (kept with the credential). */
  displayName?: string;
  notes?: string;
  credential: { kind: "session" } | { kind: "service_token"; tokenId: number };
}

/** What a stored credential says, whether or not it still stands for its user. */
export interface ResolvedCredential {
  caller: Caller;
  expiresAt: Date | null;
  userEnabled: boolean;
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

export interface IssuedToken {
  id: number;
  token: string;
  expiresAt: Date | null;
}

/** Sessions and service tokens: issued once in clear, then known only by their SHA-256. */
export class CredentialStore {
  constructor(
    private readonly datastore: Datastore,
    private readonly clock: Clock,
    private readonly cache: AccessCache,
  ) {}

  /** Starts a session; a user keeps at most 10, the ones expiring soonest give way. */
  async startSession(userId: number): Promise<IssuedSession> {
    const token = generateToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
    await this.datastore.db.transaction(async (tx) => {
      await tx.delete(sessions).where(lte(sessions.expiresAt, now));
      await tx.insert(sessions).values({ tokenHash: hashToken(token), userId, createdAt: now, expiresAt });
      const kept = tx
        .select({ tokenHash: sessions.tokenHash })
        .from(sessions)
        .where(eq(sessions.userId, userId))
        .orderBy(desc(sessions.expiresAt))
        .limit(MAX_SESSIONS_PER_USER);
      await tx.delete(sessions).where(and(eq(sessions.userId, userId), notInArray(sessions.tokenHash, kept)));
    });
    return { token, expiresAt };
  }

  /** Ends the session of a token; false when it named none (nothing changed). */
  async endSession(token: string): Promise<boolean> {
    const tokenHash = hashToken(token);
    const ended = await this.datastore.db
      .delete(sessions)
      .where(eq(sessions.tokenHash, tokenHash))
      .returning({ tokenHash: sessions.tokenHash });
    this.cache.credentials.delete(tokenHash);
    return ended.length > 0;
  }

  async issueServiceToken(owner: User, annotation: string, expiresAt: Date | null): Promise<IssuedToken> {
    const token = generateToken();
    const [row] = await this.datastore.db
      .insert(serviceTokens)
      .values({
        tokenHash: hashToken(token),
        userId: owner.id,
        annotation,
        expiresAt,
        createdAt: this.clock.now(),
      })
      .returning({ id: serviceTokens.id });
    return { id: (row as { id: number }).id, token, expiresAt };
  }

  async revokeServiceToken(id: number): Promise<boolean> {
    const deleted = await this.datastore.db
      .delete(serviceTokens)
      .where(eq(serviceTokens.id, id))
      .returning({ id: serviceTokens.id });
    // Only the hash is known here, not which cached token it was: forget them all.
    this.cache.credentials.clear();
    return deleted.length > 0;
  }

  /**
   * The caller a token stands for: a service token first, then a session. Unknown, expired or
   * revoked tokens and tokens of disabled users stand for nobody. Known tokens are remembered
   * briefly (see AccessCache); expiry is checked on every use.
   */
  async resolve(token: string): Promise<Caller | undefined> {
    const tokenHash = hashToken(token);
    const found = await this.cache.credentials.get(
      tokenHash,
      () => this.lookup(tokenHash),
      (resolved) => resolved !== undefined,
    );
    if (!found) {
      return undefined;
    }
    if (found.expiresAt !== null && found.expiresAt <= this.clock.now()) {
      this.cache.credentials.delete(tokenHash);
      if (found.caller.credential.kind === "session") {
        await this.datastore.db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
      }
      return undefined;
    }
    return found.userEnabled ? found.caller : undefined;
  }

  private async lookup(tokenHash: string): Promise<ResolvedCredential | undefined> {
    const [service] = await this.datastore.db
      .select({ id: serviceTokens.id, expiresAt: serviceTokens.expiresAt, user: users })
      .from(serviceTokens)
      .innerJoin(users, eq(users.id, serviceTokens.userId))
      .where(eq(serviceTokens.tokenHash, tokenHash));
    if (service) {
      return {
        caller: callerOf(service.user, { kind: "service_token", tokenId: service.id }),
        expiresAt: service.expiresAt,
        userEnabled: service.user.enabled,
      };
    }
    const [session] = await this.datastore.db
      .select({ expiresAt: sessions.expiresAt, user: users })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.tokenHash, tokenHash));
    return (
      session && {
        caller: callerOf(session.user, { kind: "session" }),
        expiresAt: session.expiresAt,
        userEnabled: session.user.enabled,
      }
    );
  }

  /** Service tokens of every user, newest first, with their owners. */
  async listServiceTokens(ids?: number[]) {
    const query = this.datastore.db
      .select({ token: serviceTokens, owner: users })
      .from(serviceTokens)
      .innerJoin(users, eq(users.id, serviceTokens.userId))
      .orderBy(desc(serviceTokens.createdAt), desc(serviceTokens.id));
    return ids ? query.where(inArray(serviceTokens.id, ids)) : query;
  }
}

function callerOf(user: User, credential: Caller["credential"]): Caller {
  return {
    userId: user.id,
    username: user.username,
    isSuperuser: user.isSuperuser,
    displayName: user.displayName,
    notes: user.annotation,
    credential,
  };
}
