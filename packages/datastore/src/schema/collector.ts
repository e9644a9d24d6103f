import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { nowOnInsert, timestamptz } from "./columns.js";
import { connections } from "./connections.js";
import { monitoredConnection } from "./monitored-connection.js";

/**
 * Collector processes alive on this datastore: each renews its row with its leases, so that the
 * connections can be shared out evenly among the living.
 */
export const collectorInstances = pgTable("collector_instances", {
  instanceId: text().primaryKey(),
  startedAt: nowOnInsert(),
  expiresAt: timestamptz().notNull(),
});

/**
 * Which collector process collects a connection (D11). A lease past `expires_at` may be taken by any
 * collector; the holder renews it well before then.
 */
export const collectorLeases = pgTable("collector_leases", {
  connectionId: integer()
    .primaryKey()
    .references(() => connections.id, { onDelete: "cascade" }),
  holder: text().notNull(),
  acquiredAt: nowOnInsert(),
  expiresAt: timestamptz().notNull(),
});

/**
 * The last run of each probe on each connection: lets a collector that takes a connection over keep
 * its rhythm, and lets snapshot probes store a snapshot only when its content hash changes.
 */
export const probeRuns = pgTable(
  "probe_runs",
  {
    connectionId: monitoredConnection(),
    probeName: text().notNull(),
    lastRunAt: timestamptz().notNull(),
    /** SHA-256 of the last stored snapshot (snapshot probes only). */
    snapshotHash: text(),
    snapshotCollectedAt: timestamptz(),
  },
  (table) => [primaryKey({ columns: [table.connectionId, table.probeName] })],
);

/**
 * How far each probe's rollups (`metrics.metric_rollups_<resolution>`) are complete: buckets before
 * `rolled_through` are stored once and never again, so rollups are written exactly once per bucket.
 */
export const metricRollupProgress = pgTable(
  "metric_rollup_progress",
  {
    probeName: text().notNull(),
    resolutionSeconds: integer().notNull(),
    rolledThrough: timestamptz().notNull(),
  },
  (table) => [primaryKey({ columns: [table.probeName, table.resolutionSeconds] })],
);

/**
 * The probes whose rows are stored once per server, under the server's representative connection
 * (`dbmon_server_connection`, migration 0029): written by the collector from the probe catalogue, read
 * by the trigger that moves a server's rows to its new representative when the old one leaves.
 */
export const serverWideProbes = pgTable("server_wide_probes", {
  probeName: text().primaryKey(),
});
