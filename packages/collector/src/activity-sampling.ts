import type { ActivitySampleOf } from "@dbmon/datastore";
import type { ProbeDefinition, ProbeRow } from "./probes/types.js";
import { COLLECTOR_APPLICATION_NAME } from "./sessions.js";

/**
 * Active session history's sampling, as the probe configuration knows it (`activity_sampling`:
 * interval, retention of the per-minute aggregates, enabled). It runs once per monitored server like
 * the other server-wide probes, but stores into `metrics.activity_samples`, `activity_minutes` and
 * `activity_ticks` (ActivityStore) rather than a table of its own, so it is not in the catalogue of
 * metric tables.
 */
export const activitySamplingProbe: ProbeDefinition = {
  name: "activity_sampling",
  scope: "server",
  intervalSeconds: 1,
  retentionDays: 7,
  snapshot: false,
  columns: [],
};

export const ACTIVITY_SAMPLING_DESCRIPTION =
  "Active session history: every non-idle session of the server (state, wait event, query id, " +
  "blocking pids), sampled once per interval into metrics.activity_samples (kept briefly) and " +
  "counted per minute into metrics.activity_minutes (kept the retention days)";

export function isActivitySampling(probe: ProbeDefinition): boolean {
  return probe.name === activitySamplingProbe.name;
}

/** One session of a sampling tick, as `metrics.activity_samples` stores it. */
export type ActivitySample = ActivitySampleOf<Date>;

/**
 * The sampling query: one read of pg_stat_activity per server and tick, whatever the number of
 * databases. Sessions that are idle are left out: state `idle`, and processes waiting in their main
 * loop (wait event type `Activity`: background processes and WAL senders with nothing to do). The
 * collector's own sessions (any dbmon collector's, by application name, and this one) are left out
 * too. pg_blocking_pids() takes the lock manager's locks, so it is called only for sessions waiting
 * on a heavyweight lock. `query_id` exists from PostgreSQL 14 (filled when compute_query_id is on,
 * or `auto` with pg_stat_statements loaded). Query text is cut on the server (`left`), so a long
 * statement costs no more than `queryChars` on the wire; 0 leaves it out.
 */
export function activitySamplingQuery(serverVersionNum: number, queryChars: number): string {
  const queryId = serverVersionNum >= 140_000 ? "a.query_id::text" : "null::text";
  const query = queryChars > 0 ? `left(a.query, ${Math.floor(queryChars)})` : "null::text";
  return `/* dbmon collector: ${activitySamplingProbe.name} */
    select a.pid, a.datname::text as database_name, a.usename::text as user_name,
      coalesce(a.application_name, '') as application_name, a.client_addr::text as client_addr,
      coalesce(a.backend_type, '') as backend_type, a.state, a.wait_event_type, a.wait_event,
      ${queryId} as query_id, ${query} as query, a.xact_start, a.query_start, a.state_change,
      case when a.wait_event_type = 'Lock' then array_to_string(pg_blocking_pids(a.pid), ',') end
        as blocking_pids
    from pg_stat_activity a
    where a.pid <> pg_backend_pid()
      and a.application_name is distinct from '${COLLECTOR_APPLICATION_NAME}'
      and a.state is distinct from 'idle'
      and a.wait_event_type is distinct from 'Activity'`;
}

function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function dateOrNull(value: unknown): Date | null {
  return value instanceof Date ? value : null;
}

/** A row of the sampling query as a sample (the driver reads arrays as text on monitored servers). */
export function toActivitySample(row: ProbeRow): ActivitySample {
  const blocking = textOrNull(row.blocking_pids);
  return {
    pid: Number(row.pid),
    database_name: textOrNull(row.database_name),
    user_name: textOrNull(row.user_name),
    application_name: String(row.application_name ?? ""),
    client_addr: textOrNull(row.client_addr),
    backend_type: String(row.backend_type ?? ""),
    state: textOrNull(row.state),
    wait_event_type: textOrNull(row.wait_event_type),
    wait_event: textOrNull(row.wait_event),
    query_id: textOrNull(row.query_id),
    query: textOrNull(row.query),
    xact_start: dateOrNull(row.xact_start),
    query_start: dateOrNull(row.query_start),
    state_change: dateOrNull(row.state_change),
    blocking_pids: blocking ? blocking.split(",").map(Number) : [],
  };
}
