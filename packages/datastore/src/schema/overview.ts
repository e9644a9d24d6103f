import { boolean, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * AI overviews, shared by every API instance: the estate's (key `estate`, replaced by whichever
 * process holds the generation lock) and scoped ones (key of the scope and the connections it
 * covered, served for five minutes).
 */
export const overviewSummaries = pgTable("overview_summaries", {
  scopeKey: text().primaryKey(),
  summary: text().notNull(),
  /** The state of the servers the summary was written from (the overview's `snapshot`). */
  snapshot: jsonb().$type<Record<string, unknown>>().notNull(),
  /** Whether a server restart prompted this summary. */
  restartDetected: boolean().notNull().default(false),
  generatedAt: timestamp({ withTimezone: true }).notNull(),
});
