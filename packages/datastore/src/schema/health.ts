import { sql } from "drizzle-orm";
import { check, doublePrecision, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { eventId, timestamptz } from "./columns.js";
import { monitoredConnection } from "./monitored-connection.js";

const statusCheck = (column: unknown) => sql`${column} in ('ok', 'warning', 'critical', 'unknown')`;

/**
 * The latest result of each health check (@dbmon/monitoring, health-checks.ts) for each connection, written by
 * the alerter's evaluation pass: what the fleet views read, so that they query no monitored server.
 * `changed_at` is when the check last reached its current status (unknown: no fresh collected data).
 * A pass writes a row only when its result changed; when it was evaluated is `health_check_evaluations`.
 */
export const healthCheckStatus = pgTable(
  "health_check_status",
  {
    connectionId: monitoredConnection(),
    checkName: text().notNull(),
    status: text().notNull(),
    /** The latest status other than unknown (ok before any): what a change is measured from. */
    knownStatus: text().notNull(),
    value: doublePrecision(),
    /** The objects behind the value (at most a few dozen), as the check describes them. */
    findings: jsonb().notNull().default([]),
    changedAt: timestamptz().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.connectionId, table.checkName] }),
    check("health_check_status_status", statusCheck(table.status)),
  ],
);

/**
 * When the alerter's pass last evaluated a connection's health checks (all of them, in one pass): one
 * row per connection, so that a pass rewrites a few bytes per connection instead of every check's
 * result (16 checks, their findings) when nothing changed.
 */
export const healthCheckEvaluations = pgTable("health_check_evaluations", {
  connectionId: monitoredConnection().primaryKey(),
  evaluatedAt: timestamptz().notNull(),
});

/**
 * Every change of a check's known status (ok, warning, critical; a check that cannot be judged for
 * lack of data changes nothing): what the timeline shows as health_check_changed events.
 */
export const healthCheckChanges = pgTable(
  "health_check_changes",
  {
    id: eventId(),
    connectionId: monitoredConnection(),
    checkName: text().notNull(),
    previousStatus: text().notNull(),
    status: text().notNull(),
    value: doublePrecision(),
    changedAt: timestamptz().notNull(),
  },
  (table) => [
    index("health_check_changes_connection_changed_idx").on(table.connectionId, table.changedAt),
    check("health_check_changes_status", statusCheck(table.status)),
  ],
);
