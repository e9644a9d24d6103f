import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "./auth.js";
import { timestamptz } from "./columns.js";

/**
 * Chat conversations, each its owner's alone. Messages are stored verbatim as the client sent them
 * (role, content as text or content blocks, and whatever else the client keeps per message).
 */
export const conversations = pgTable(
  "conversations",
  {
    /** `conv_<unix nanoseconds>_<16 hex digits>`. */
    id: text().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text().notNull(),
    provider: text(),
    model: text(),
    /** The connection the conversation is about, by name, as the client sends it. */
    connection: text(),
    messages: jsonb().$type<Record<string, unknown>[]>().notNull(),
    createdAt: timestamptz().notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (table) => [index().on(table.userId, table.updatedAt.desc())],
);
