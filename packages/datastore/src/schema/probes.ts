import { sql } from "drizzle-orm";
import { boolean, check, integer, pgTable, text, unique } from "drizzle-orm/pg-core";
import { nowOnInsert, rowId } from "./columns.js";

/**
 * Collection settings of each probe: the defaults (scope `global`, seeded by the collector from its
 * probe registry) and overrides per cluster group (`group`), cluster (`cluster`) or connection
 * (`server`), identified by `scope_id` (0 for global). The most specific applies: server, cluster,
 * group, global. No foreign keys: clusters and groups live in tables of another feature.
 */
export const probeConfigs = pgTable(
  "probe_configs",
  {
    id: rowId(),
    name: text().notNull(),
    description: text().notNull().default(""),
    collectionIntervalSeconds: integer().notNull(),
    retentionDays: integer().notNull(),
    isEnabled: boolean().notNull().default(true),
    /**
     * Whether the probe lists the system catalogs' objects too; null for probes that have none to
     * leave out (only those the catalogue marks `systemCatalogsOptional`).
     */
    includeSystemCatalogs: boolean(),
    scope: text().notNull(),
    scopeId: integer().notNull().default(0),
    /** Set by a person (through the API), as opposed to a seeded default. */
    userModified: boolean().notNull().default(false),
    createdAt: nowOnInsert(),
    updatedAt: nowOnInsert(),
  },
  (table) => [
    unique("probe_configs_name_scope_key").on(table.name, table.scope, table.scopeId),
    check("probe_configs_scope", sql`${table.scope} in ('global', 'group', 'cluster', 'server')`),
    check("probe_configs_scope_id", sql`(${table.scope} = 'global') = (${table.scopeId} = 0)`),
    check("probe_configs_interval_positive", sql`${table.collectionIntervalSeconds} > 0`),
    check("probe_configs_retention_positive", sql`${table.retentionDays} > 0`),
  ],
);
