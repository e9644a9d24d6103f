import { randomBytes } from "node:crypto";
import { type Datastore, schema } from "@dbmon/datastore";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Caller } from "../auth/credentials.js";
import type { Clock } from "../clock.js";
import { NotFound } from "../errors.js";
import type { Page } from "../paging.js";

const { conversations } = schema;

/** A message as the client sent it: role, text or blocks, and whatever else it keeps. */
export type StoredMessage = {
  [key: string]: unknown;
  role: string;
  content: string | Record<string, unknown>[];
};

/** A conversation with its messages and its owner's name. */
export type Conversation = Omit<typeof conversations.$inferSelect, "messages"> & {
  messages: StoredMessage[];
  username: string;
};

/** A conversation as listed: no messages, a preview of the first user text instead. */
export interface ConversationSummary {
  id: string;
  title: string;
  connection: string | null;
  createdAt: Date;
  updatedAt: Date;
  preview: string;
}

const TITLE_LENGTH = 50;
const PREVIEW_LENGTH = 100;
const NOT_FOUND = "Conversation not found";

export interface ConversationInput {
  provider?: string | undefined;
  model?: string | undefined;
  connection?: string | undefined;
  messages?: StoredMessage[] | undefined;
}

/**
 * Each user's chat conversations. Every query is bounded by the caller's user id, so another
 * user's conversation is not found, for superusers too.
 */
export class ConversationStore {
  constructor(
    private readonly datastore: Datastore,
    private readonly clock: Clock,
  ) {}

  /** The caller's conversations, most recently updated first. */
  async list(caller: Caller, { limit, offset }: Page): Promise<ConversationSummary[]> {
    // The preview is computed in SQL: the messages themselves never leave the datastore here.
    const rows = await this.datastore.db
      .select({
        id: conversations.id,
        title: conversations.title,
        connection: conversations.connection,
        createdAt: conversations.createdAt,
        updatedAt: conversations.updatedAt,
        firstUserText: sql<string | null>`(
          select m->>'content' from jsonb_array_elements(${conversations.messages}) with ordinality as e(m, n)
          where m->>'role' = 'user' and jsonb_typeof(m->'content') = 'string'
          order by n limit 1)`,
      })
      .from(conversations)
      .where(eq(conversations.userId, caller.userId))
      .orderBy(desc(conversations.updatedAt), desc(conversations.id))
      .limit(limit)
      .offset(offset);
    return rows.map(({ firstUserText, ...row }) => ({
      ...row,
      preview: truncate(firstUserText ?? "", PREVIEW_LENGTH),
    }));
  }

  async create(
    caller: Caller,
    input: ConversationInput & { messages: StoredMessage[] },
  ): Promise<Conversation> {
    const now = this.clock.now();
    const [row] = await this.datastore.db
      .insert(conversations)
      .values({
        id: newConversationId(now),
        userId: caller.userId,
        title: titleOf(input.messages),
        provider: input.provider || null,
        model: input.model || null,
        connection: input.connection || null,
        messages: input.messages,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return owned(caller, row as typeof conversations.$inferSelect);
  }

  async get(caller: Caller, id: string): Promise<Conversation> {
    const [row] = await this.datastore.db.select().from(conversations).where(this.owned(caller, id));
    if (!row) {
      throw new NotFound(NOT_FOUND);
    }
    return owned(caller, row);
  }

  /** Replaces provider, model and connection, and the messages when given. */
  async update(caller: Caller, id: string, input: ConversationInput): Promise<Conversation> {
    const [row] = await this.datastore.db
      .update(conversations)
      .set({
        provider: input.provider || null,
        model: input.model || null,
        connection: input.connection || null,
        ...(input.messages ? { messages: input.messages } : {}),
        updatedAt: this.clock.now(),
      })
      .where(this.owned(caller, id))
      .returning();
    if (!row) {
      throw new NotFound(NOT_FOUND);
    }
    return owned(caller, row);
  }

  async rename(caller: Caller, id: string, title: string): Promise<void> {
    const renamed = await this.datastore.db
      .update(conversations)
      .set({ title, updatedAt: this.clock.now() })
      .where(this.owned(caller, id))
      .returning({ id: conversations.id });
    if (renamed.length === 0) {
      throw new NotFound(NOT_FOUND);
    }
  }

  async delete(caller: Caller, id: string): Promise<void> {
    const deleted = await this.datastore.db
      .delete(conversations)
      .where(this.owned(caller, id))
      .returning({ id: conversations.id });
    if (deleted.length === 0) {
      throw new NotFound(NOT_FOUND);
    }
  }

  /** Deletes all of the caller's conversations; how many there were. */
  async deleteAll(caller: Caller): Promise<number> {
    const deleted = await this.datastore.db
      .delete(conversations)
      .where(eq(conversations.userId, caller.userId))
      .returning({ id: conversations.id });
    return deleted.length;
  }

  private owned(caller: Caller, id: string) {
    return and(eq(conversations.id, id), eq(conversations.userId, caller.userId));
  }
}

/** `conv_<unix nanoseconds>_<16 hex digits>`. */
function newConversationId(now: Date): string {
  const nanos = BigInt(now.getTime()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  return `conv_${nanos}_${randomBytes(8).toString("hex")}`;
}

/** The first user message with text content, else `New conversation`. */
function titleOf(messages: StoredMessage[]): string {
  const first = messages.find((message) => message.role === "user" && typeof message.content === "string");
  const text = typeof first?.content === "string" ? first.content.trim() : "";
  return text ? truncate(text, TITLE_LENGTH) : "New conversation";
}

/** Up to `length` characters; longer texts keep `length - 3` and end in `...`. */
function truncate(text: string, length: number): string {
  const characters = [...text];
  return characters.length > length ? `${characters.slice(0, length - 3).join("")}...` : text;
}

/** The caller's row as a Conversation: theirs, so their name is its owner's. */
function owned(caller: Caller, row: typeof conversations.$inferSelect): Conversation {
  return { ...row, messages: row.messages as StoredMessage[], username: caller.username };
}
