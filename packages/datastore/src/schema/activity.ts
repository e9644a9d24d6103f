import { sql } from "drizzle-orm";
import { bigint, index, integer, pgSchema, primaryKey, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";
// Evaluated before monitored-connection.ts, which connections.ts reaches back to through clusters.ts:
// the schema's index loads this file first.
import "./connections.js";
import { monitoredConnection } from "./monitored-connection.js";

/** Where collected metrics live; the collector creates the probe tables there at start. */
const metrics = pgSchema("metrics");

/**
 * Active session history, raw: what every non-idle session of a monitored server was doing at each
 * sampling tick (probe `activity_sampling`), kept a short time for drill-down. Range-partitioned by
 * hour on `sampled_at` (migration 0024; the collector creates the hours ahead and drops expired ones),
 * with a default partition for rows outside every hour created.
 */
export const activitySamples = metrics.table(
  "activity_samples",
  {
    connectionId: monitoredConnection(),
    sampledAt: timestamptz().notNull(),
    pid: integer().notNull(),
    databaseName: text(),
    userName: text(),
    applicationName: text().notNull().default(""),
    clientAddr: text(),
    backendType: text().notNull(),
    state: text(),
    waitEventType: text(),
    waitEvent: text(),
    /** pg_stat_activity.query_id (PostgreSQL 14+, when compute_query_id gives it). */
    queryId: bigint({ mode: "bigint" }),
    /** Truncated to the configured length; null when query text collection is off. */
    query: text(),
    xactStart: timestamptz(),
    queryStart: timestamptz(),
    stateChange: timestamptz(),
    /** pg_blocking_pids(), read only for sessions waiting on a lock. */
    blockingPids: integer().array().notNull().default(sql`'{}'::integer[]`),
  },
  (table) => [index("activity_samples_connection_sampled_idx").on(table.connectionId, table.sampledAt)],
);

/**
 * Active session history per minute: how many samples of each kind a connection's server had in
 * that minute (empty string / 0 for what the sample left null). The long-term store, kept the
 * probe's retention days. Range-partitioned by week on `minute`, like the probe tables.
 */
export const activityMinutes = metrics.table(
  "activity_minutes",
  {
    connectionId: monitoredConnection(),
    minute: timestamptz().notNull(),
    databaseName: text().notNull().default(""),
    userName: text().notNull().default(""),
    applicationName: text().notNull().default(""),
    clientAddr: text().notNull().default(""),
    backendType: text().notNull().default(""),
    state: text().notNull().default(""),
    waitEventType: text().notNull().default(""),
    waitEvent: text().notNull().default(""),
    queryId: bigint({ mode: "bigint" }).notNull().default(sql`0`),
    samples: integer().notNull(),
  },
  (table) => [
    primaryKey({
      name: "activity_minutes_pkey",
      columns: [
        table.connectionId,
        table.minute,
        table.databaseName,
        table.userName,
        table.applicationName,
        table.clientAddr,
        table.backendType,
        table.state,
        table.waitEventType,
        table.waitEvent,
        table.queryId,
      ],
    }),
  ],
);

/**
 * How many sampling ticks succeeded per connection and minute: the denominator of the average
 * active sessions (a gap in sampling does not dilute the load). Partitioned by week like
 * `activity_minutes`.
 */
export const activityTicks = metrics.table(
  "activity_ticks",
  {
    connectionId: monitoredConnection(),
    minute: timestamptz().notNull(),
    ticks: integer().notNull(),
  },
  (table) => [primaryKey({ name: "activity_ticks_pkey", columns: [table.connectionId, table.minute] })],
);

/**
 * `activity_minutes` summed per hour and reduced to one dimension at a time: for each `dimension`
 * (a column of `activity_minutes`, or '' for none: the load of a wait event type or of the whole
 * connection), the samples of each of its values (`value`, '' for none) and wait event types. A load
 * over whole hours by one dimension reads only its rows: a few per connection and hour for wait
 * event types, however many queries, users and clients share them. The collector adds to it in the
 * transaction that adds the closed minutes, so it always sums them. Partitioned by week and kept as
 * long as `activity_minutes`.
 */
export const activityHours = metrics.table(
  "activity_hours",
  {
    connectionId: monitoredConnection(),
    hour: timestamptz().notNull(),
    dimension: text().notNull(),
    value: text().notNull(),
    waitEventType: text().notNull(),
    samples: integer().notNull(),
  },
  (table) => [
    primaryKey({
      name: "activity_hours_pkey",
      // The dimension before the hour: a load reads one dimension's range of hours per connection.
      // Migration 0026 adds INCLUDE (samples), for index-only scans (Drizzle declares no INCLUDE).
      columns: [table.connectionId, table.dimension, table.hour, table.value, table.waitEventType],
    }),
  ],
);

/** `activity_ticks` summed per hour: the denominator of an hourly load. Partitioned like `activity_hours`. */
export const activityHourTicks = metrics.table(
  "activity_hour_ticks",
  {
    connectionId: monitoredConnection(),
    hour: timestamptz().notNull(),
    ticks: integer().notNull(),
  },
  (table) => [primaryKey({ name: "activity_hour_ticks_pkey", columns: [table.connectionId, table.hour] })],
);
