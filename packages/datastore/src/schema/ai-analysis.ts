import { integer, jsonb, pgTable } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";
import { connections } from "./connections.js";

/**
 * The latest AI analysis of each connection's databases, kept in the datastore so that every API
 * instance serves the same result within its five-minute window.
 */
export const aiAnalysisCache = pgTable("ai_analysis_cache", {
  connectionId: integer()
    .primaryKey()
    .references(() => connections.id, { onDelete: "cascade" }),
  /** Database name → one-sentence description of its likely purpose. */
  databases: jsonb().$type<Record<string, string>>().notNull(),
  generatedAt: timestamptz().notNull(),
});
