import { type Datastore, schema } from "@dbmon/datastore";
import type { Embedder } from "@dbmon/llm";
import { and, desc, eq, or, type SQL, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import type { Caller } from "../auth/credentials.js";
import type { Clock } from "../clock.js";
import { Forbidden, InvalidInput, NotFound } from "../errors.js";
import type { PinnedMemorySource } from "../llm/system-prompt.js";
import type { Logger } from "../logger.js";
import { ShortLivedCache } from "../short-lived-cache.js";

const { chatMemories, users } = schema;

export type MemoryScope = "user" | "system";

export const DEFAULT_RECALL_LIMIT = 10;
export const MAX_RECALL_LIMIT = 100;
/** Longest memory kept: a memory is a fact, not a document. */
export const MAX_CONTENT_LENGTH = 10_000;

/** The channel the datastore's triggers notify on any change to a pinned memory (migration 0022). */
export const PINNED_MEMORIES_CHANNEL = "dbmon_memories";

/**
 * How long a user's pinned memories may be served without a change notification. Changes made
 * through this process clear them before their response, other processes' changes arrive by NOTIFY
 * within milliseconds; this bound only matters if a notification is lost with the connection.
 */
export const PINNED_CACHE_TTL_MS = 10_000;

export interface NewMemory {
  content: string;
  category: string;
  scope?: MemoryScope | undefined;
  pinned?: boolean | undefined;
}

export interface RecallQuery {
  query: string;
  category?: string | undefined;
  scope?: MemoryScope | undefined;
  limit?: number | undefined;
}

/** A memory found by recall. */
export interface RecalledMemory extends Memory {
  /** How well the memory matches: ts_rank for text recall, 1 − cosine distance for semantic recall. */
  score: number;
}

const messages = {
  notFound: "Memory not found",
  notAccessible: "Memory not found or not accessible",
  deleteSystem: "Permission denied: you do not have permission to delete system memories",
  storeSystem: "Permission denied: storing system memories requires the store_system_memory permission",
} as const;

const columns = {
  id: chatMemories.id,
  userId: chatMemories.userId,
  username: users.username,
  scope: chatMemories.scope,
  category: chatMemories.category,
  content: chatMemories.content,
  pinned: chatMemories.pinned,
  modelName: chatMemories.modelName,
  createdAt: chatMemories.createdAt,
  updatedAt: chatMemories.updatedAt,
};

/** A stored memory with its owner's name. */
export interface Memory {
  id: number;
  userId: number;
  username: string;
  scope: MemoryScope;
  category: string;
  content: string;
  pinned: boolean;
  modelName: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Memories stored through the MCP tools: each user's own (user scope) and everyone's (system scope).
 * A user never sees another user's user-scope memories, superusers included. Recall is semantic when
 * an embedding provider is configured and pgvector is installed in the datastore, full-text
 * (PostgreSQL `tsvector`, ranked) otherwise.
 */
export class MemoryStore implements PinnedMemorySource {
  #vectorInstalled: Promise<boolean> | undefined;
  /** Each user's pinned memories and the system's, by user id: every chat's prompt reads them. */
  readonly #pinned = new ShortLivedCache<number, string[]>(PINNED_CACHE_TTL_MS);

  constructor(
    private readonly deps: {
      datastore: Datastore;
      clock: Clock;
      logger: Logger;
      /** The configured embedding provider, or null: memories are then found by full-text search. */
      embedder: Embedder | null;
    },
  ) {}

  /**
   * Drops the cached pinned memories on every change notification and whenever the listening
   * connection is (re)established, since notifications sent while it was down are lost.
   */
  async listen(): Promise<void> {
    const forget = () => this.#pinned.clear();
    await this.deps.datastore.listen(PINNED_MEMORIES_CHANNEL, forget, forget);
  }

  /**
   * The caller's memories and every system memory (of the category, when given), most recently
   * updated first, at most `limit`.
   */
  async list(caller: Caller, filter: { category?: string | undefined }, limit: number): Promise<Memory[]> {
    return this.select(
      and(visibleTo(caller), filter.category ? eq(chatMemories.category, filter.category) : undefined),
    )
      .orderBy(desc(chatMemories.updatedAt), desc(chatMemories.id))
      .limit(limit);
  }

  /** Pins or unpins the caller's own memory or a system memory. */
  async setPinned(caller: Caller, id: number, pinned: boolean): Promise<{ id: number; pinned: boolean }> {
    const [row] = await this.deps.datastore.db
      .update(chatMemories)
      .set({ pinned, updatedAt: this.deps.clock.now() })
      .where(and(eq(chatMemories.id, id), visibleTo(caller)))
      .returning({ id: chatMemories.id, pinned: chatMemories.pinned });
    this.#pinned.clear();
    if (!row) {
      throw new NotFound(messages.notAccessible);
    }
    return row;
  }

  /** Deletes the caller's own memory, or a system memory with store_system_memory. */
  async delete(access: RequestAccess, id: number): Promise<void> {
    const caller = await access.requireCaller();
    const [row] = await this.select(and(eq(chatMemories.id, id), visibleTo(caller)));
    if (!row) {
      throw new NotFound(messages.notFound);
    }
    if (row.scope === "system" && !(await access.hasPermission("store_system_memory"))) {
      throw new Forbidden(messages.deleteSystem);
    }
    await this.deps.datastore.db.delete(chatMemories).where(eq(chatMemories.id, id));
    this.#pinned.clear();
  }

  /** Stores a memory; system scope needs store_system_memory. */
  async store(access: RequestAccess, input: NewMemory): Promise<Memory> {
    const caller = await access.requireCaller();
    const content = input.content.trim();
    const category = input.category.trim();
    if (!content) {
      throw new InvalidInput("content is required");
    }
    if (!category) {
      throw new InvalidInput("category is required");
    }
    if (content.length > MAX_CONTENT_LENGTH) {
      throw new InvalidInput(`content is longer than ${MAX_CONTENT_LENGTH} characters`);
    }
    const scope = input.scope ?? "user";
    if (scope === "system" && !(await access.hasPermission("store_system_memory"))) {
      throw new Forbidden(messages.storeSystem);
    }
    const embedded = await this.embed(content, "document");
    const now = this.deps.clock.now();
    const [row] = await this.deps.datastore.db
      .insert(chatMemories)
      .values({
        userId: caller.userId,
        scope,
        category,
        content,
        pinned: input.pinned ?? false,
        modelName: embedded?.model ?? null,
        embedding: embedded?.vector ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: chatMemories.id });
    this.#pinned.clear();
    if (!row) {
      throw new Error("insert returned nothing");
    }
    const [stored] = await this.select(eq(chatMemories.id, row.id));
    return stored as Memory;
  }

  /**
   * Memories matching the query, best first. Pinned memories always come along (after the matches,
   * within the limit), as the reference's recall does.
   */
  async recall(
    caller: Caller,
    query: RecallQuery,
  ): Promise<{ mode: "semantic" | "text"; memories: RecalledMemory[] }> {
    const text = query.query.trim();
    if (!text) {
      throw new InvalidInput("query is required");
    }
    const limit = Math.min(Math.max(query.limit || DEFAULT_RECALL_LIMIT, 1), MAX_RECALL_LIMIT);
    const filter = and(
      visibleTo(caller),
      query.category ? eq(chatMemories.category, query.category) : undefined,
      query.scope ? eq(chatMemories.scope, query.scope) : undefined,
    );
    const embedded = (await this.vectorInstalled()) ? await this.embed(text, "query") : undefined;
    if (embedded) {
      const vector = `[${embedded.vector.join(",")}]`;
      const distance = sql<number>`(${chatMemories.embedding}::vector <=> ${vector}::vector)`;
      const rows = await this.deps.datastore.db
        .select({ ...columns, score: sql<number>`1 - ${distance}` })
        .from(chatMemories)
        .innerJoin(users, eq(users.id, chatMemories.userId))
        .where(
          and(
            filter,
            or(
              and(
                eq(chatMemories.modelName, embedded.model),
                sql`cardinality(${chatMemories.embedding}) = ${embedded.vector.length}`,
              ),
              eq(chatMemories.pinned, true),
            ),
          ),
        )
        .orderBy(
          sql`case when ${chatMemories.modelName} = ${embedded.model} and cardinality(${chatMemories.embedding}) = ${embedded.vector.length} then ${distance} end nulls last`,
          desc(chatMemories.updatedAt),
        )
        .limit(limit);
      return { mode: "semantic", memories: rows.map(scored) };
    }
    const tsquery = sql`websearch_to_tsquery('english', ${text})`;
    const matches = sql`(${chatMemories.search} @@ ${tsquery} or strpos(lower(${chatMemories.content}), lower(${text})) > 0)`;
    const rows = await this.deps.datastore.db
      .select({
        ...columns,
        score: sql<number>`case when ${matches} then ts_rank(${chatMemories.search}, ${tsquery}) + 0.0001 else 0 end::float8`,
      })
      .from(chatMemories)
      .innerJoin(users, eq(users.id, chatMemories.userId))
      .where(and(filter, or(matches, eq(chatMemories.pinned, true))))
      .orderBy(
        desc(sql`case when ${matches} then ts_rank(${chatMemories.search}, ${tsquery}) + 0.0001 else 0 end`),
        desc(chatMemories.updatedAt),
        desc(chatMemories.id),
      )
      .limit(limit);
    return { mode: "text", memories: rows.map(scored) };
  }

  /**
   * The pinned memories of a user and the pinned system memories, for the chat's system prompt:
   * read once and kept until a pinned memory changes (see `listen`), since every chat needs them.
   */
  pinnedFor(userId: number): Promise<string[]> {
    return this.#pinned.get(userId, async () => {
      const rows = await this.deps.datastore.db
        .select({ content: chatMemories.content })
        .from(chatMemories)
        .where(
          and(
            eq(chatMemories.pinned, true),
            or(eq(chatMemories.scope, "system"), eq(chatMemories.userId, userId)),
          ),
        )
        .orderBy(desc(chatMemories.updatedAt), desc(chatMemories.id))
        .limit(100);
      return rows.map((row) => row.content);
    });
  }

  private select(where: SQL | undefined) {
    return this.deps.datastore.db
      .select(columns)
      .from(chatMemories)
      .innerJoin(users, eq(users.id, chatMemories.userId))
      .where(where)
      .$dynamic();
  }

  /** Whether the datastore has pgvector (looked up once). */
  private vectorInstalled(): Promise<boolean> {
    if (!this.deps.embedder) {
      return Promise.resolve(false);
    }
    this.#vectorInstalled ??= this.deps.datastore.sql<{ installed: boolean }[]>`
      select exists (select 1 from pg_extension where extname = 'vector') as installed`.then(
      ([row]) => row?.installed ?? false,
    );
    return this.#vectorInstalled;
  }

  /** The text's embedding, or undefined without a provider or when it fails (text search still works). */
  private async embed(text: string, inputType: "document" | "query") {
    const { embedder, logger } = this.deps;
    if (!embedder) {
      return undefined;
    }
    try {
      const result = await embedder.embed({ input: [text], inputType });
      const vector = result.embeddings[0];
      return vector ? { model: result.model, vector } : undefined;
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, "memory embedding failed");
      return undefined;
    }
  }
}

function visibleTo(caller: Caller): SQL {
  return or(eq(chatMemories.scope, "system"), eq(chatMemories.userId, caller.userId)) as SQL;
}

/** The recalled row with its score as a number, as the SQL expression may arrive in another type. */
function scored(row: Memory & { score: number }): RecalledMemory {
  return { ...row, score: Number(row.score) };
}
