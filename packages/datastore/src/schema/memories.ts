import { sql } from "drizzle-orm";
import { boolean, check, customType, index, integer, pgTable, real, text } from "drizzle-orm/pg-core";
import { users } from "./auth.js";
import { rowId, timestamptz } from "./columns.js";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * What users (and, in system scope, everyone) asked the assistant to remember, written through the
 * `store_memory` MCP tool. User-scope memories are their owner's alone; system-scope ones are read
 * by every user. Recall is full-text over `search`; the embedding is kept as a plain float array so
 * that no extension is required, and cast to pgvector's type at query time when it is installed.
 */
export const chatMemories = pgTable(
  "chat_memories",
  {
    id: rowId(),
    /** Who stored it (system-scope memories too). */
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    scope: text().$type<"user" | "system">().notNull(),
    category: text().notNull(),
    content: text().notNull(),
    pinned: boolean().notNull().default(false),
    /** The embedding model that computed `embedding`, when one did. */
    modelName: text(),
    embedding: real().array(),
    search: tsvector().generatedAlwaysAs(sql`to_tsvector('english'::regconfig, category || ' ' || content)`),
    createdAt: timestamptz().notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (table) => [
    check("chat_memories_scope", sql`${table.scope} in ('user', 'system')`),
    index().on(table.userId, table.updatedAt.desc()),
    index().on(table.scope, table.updatedAt.desc()),
    index("chat_memories_search_idx").using("gin", table.search),
  ],
);
