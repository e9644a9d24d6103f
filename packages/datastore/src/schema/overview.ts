import { boolean, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";

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
  generatedAt: timestamptz().notNull(),
});

/**
 * Who is writing which overview now: one generation per key over all API processes, without a
 * transaction or a pooled session held open across the LLM call. The holder renews its lease while
 * it works; a lease whose process died lapses at `expires_at` and the next caller takes it.
 */
export const overviewGenerationLeases = pgTable("overview_generation_leases", {
  scopeKey: text().primaryKey(),
  holder: text().notNull(),
  expiresAt: timestamptz().notNull(),
});
