import { sql } from "drizzle-orm";
import { customType, index, pgTable, text } from "drizzle-orm/pg-core";
import { rowId } from "./columns.js";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * The documentation corpus shipped with dbmon (its docs, README, probe catalogue and built-in alert
 * rules), one row per section, searched by the `search_knowledgebase` MCP tool. The API fills it at
 * start-up from the files in its build whenever their content changed; nothing is downloaded.
 * Titles weigh more than body text in the ranking.
 */
export const knowledgeBaseChunks = pgTable(
  "knowledge_base_chunks",
  {
    id: rowId(),
    projectName: text().notNull(),
    projectVersion: text().notNull(),
    /** Where the text comes from: a file of the build ("docs/mcp.md") or a catalogue ("probe catalogue"). */
    source: text().notNull(),
    /** The section's headings, outermost first, joined with " › ". */
    title: text().notNull(),
    content: text().notNull(),
    search: tsvector().generatedAlwaysAs(
      sql`setweight(to_tsvector('english'::regconfig, title), 'A') || setweight(to_tsvector('english'::regconfig, content), 'B')`,
    ),
  },
  (table) => [
    index("knowledge_base_chunks_search_idx").using("gin", table.search),
    index().on(table.projectName, table.projectVersion),
  ],
);
