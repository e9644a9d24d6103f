import {
  advisoryLocks,
  databaseSources,
  readsDatabaseRow,
  type Sql,
  sameReadingConnections,
  serverSources,
} from "@dbmon/datastore";
import { findProbeSpec, probeRunsTable } from "./probe-catalogue/index.js";

/*
 * Health checks: each judges one aspect of a monitored server from the rows the collector stored
 * last (never from a live query), against fixed default thresholds. The alerter's evaluation pass
 * runs `recordHealthChecks`, which keeps the latest result of every check of every monitored
 * connection in `health_check_status` and each change of status in `health_check_changes` (the
 * timeline's health_check_changed events); the API reads those tables. Definitions, evaluation and
 * recording live here only.
 */

export type HealthStatus = "ok" | "warning" | "critical" | "unknown";

export interface HealthCheckDefinition {
  name: string;
  title: string;
  category:
    | "indexes"
    | "tables"
    | "vacuum"
    | "sequences"
    | "connections"
    | "replication"
    | "cache"
    | "sessions";
  /** What `value` counts or measures. */
  unit: "count" | "bytes" | "percent" | "seconds" | "transactions";
  /** What the value is, in a sentence. */
  measures: string;
  /** `above`: a value at or above a threshold reaches its status; `below`: at or below it. */
  direction: "above" | "below";
  warning: number;
  /** Null: the check never reaches critical. */
  critical: number | null;
  /** What to do when the check is not ok. */
  remedy: string;
}

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

export const HEALTH_CHECKS: readonly HealthCheckDefinition[] = [
  {
    name: "invalid_indexes",
    title: "Invalid indexes",
    category: "indexes",
    unit: "count",
    measures: "Indexes left invalid, usually by a failed CREATE INDEX CONCURRENTLY or REINDEX CONCURRENTLY",
    direction: "above",
    warning: 1,
    critical: null,
    remedy:
      "An invalid index is maintained on every write but never used. Drop it (DROP INDEX CONCURRENTLY) and create it again; for a unique index, first remove the duplicate values that made the build fail.",
  },
  {
    name: "duplicate_indexes",
    title: "Duplicate indexes",
    category: "indexes",
    unit: "count",
    measures: "Valid indexes whose columns another valid index of the table starts with",
    direction: "above",
    warning: 1,
    critical: null,
    remedy:
      "The covering index answers the same queries. Drop the redundant index (DROP INDEX CONCURRENTLY) after checking that no constraint or query hint needs it by name.",
  },
  {
    name: "unused_indexes",
    title: "Unused indexes",
    category: "indexes",
    unit: "count",
    measures: "Non-unique indexes of 1 MiB or more never scanned since the statistics were reset",
    direction: "above",
    warning: 1,
    critical: null,
    remedy:
      "Check that the statistics cover a full business cycle and that no standby uses the index, then drop it (DROP INDEX CONCURRENTLY) to save space and write work.",
  },
  {
    name: "index_bloat",
    title: "Index bloat",
    category: "indexes",
    unit: "bytes",
    measures:
      "Estimated wasted bytes of the most bloated btree index among those at least 30 % bloated (from pg_stats)",
    direction: "above",
    warning: 100 * MIB,
    critical: GIB,
    remedy:
      "Rebuild the index with REINDEX INDEX CONCURRENTLY; frequent bloat calls for more aggressive autovacuum.",
  },
  {
    name: "table_bloat",
    title: "Table bloat",
    category: "tables",
    unit: "bytes",
    measures:
      "Estimated wasted bytes of the most bloated table among those at least 30 % bloated (from pg_stats)",
    direction: "above",
    warning: 100 * MIB,
    critical: GIB,
    remedy:
      "Space freed by VACUUM is reused but not returned. To shrink the table, rewrite it (VACUUM FULL locks it; pg_repack does not), and tune autovacuum so that it does not bloat again.",
  },
  {
    name: "dead_tuples",
    title: "Dead tuples",
    category: "vacuum",
    unit: "percent",
    measures: "Highest share of dead rows in a table with at least 10,000 dead rows",
    direction: "above",
    warning: 20,
    critical: 50,
    remedy:
      "Autovacuum is not keeping up. Run VACUUM (ANALYZE) on the tables listed, look for long transactions or slots holding back the xmin horizon, and lower autovacuum_vacuum_scale_factor for large tables.",
  },
  {
    name: "xid_age",
    title: "Transaction ID age",
    category: "vacuum",
    unit: "transactions",
    measures: "Age of the oldest unfrozen transaction ID of any database, age(datfrozenxid)",
    direction: "above",
    warning: 500_000_000,
    critical: 1_000_000_000,
    remedy:
      "Wraparound protection stops writes at about 2 billion. Find the oldest tables (age(relfrozenxid)), remove what blocks freezing (long transactions, prepared transactions, inactive slots) and run VACUUM (FREEZE) on them.",
  },
  {
    name: "multixact_age",
    title: "Multixact ID age",
    category: "vacuum",
    unit: "transactions",
    measures: "Age of the oldest multixact ID of any database, mxid_age(datminmxid)",
    direction: "above",
    warning: 500_000_000,
    critical: 1_000_000_000,
    remedy:
      "Run VACUUM (FREEZE) on the tables with the oldest mxid_age(relminmxid); row locks shared by many sessions (foreign keys, SELECT FOR SHARE) consume multixacts quickly.",
  },
  {
    name: "sequences",
    title: "Sequences near exhaustion",
    category: "sequences",
    unit: "percent",
    measures: "Highest share of its range a non-cycling sequence has handed out",
    direction: "above",
    warning: 75,
    critical: 90,
    remedy:
      "Change the sequence and its column to bigint (ALTER SEQUENCE ... AS bigint and ALTER TABLE ... ALTER COLUMN ... TYPE bigint) before it runs out; inserts fail once it does.",
  },
  {
    name: "connections",
    title: "Connection saturation",
    category: "connections",
    unit: "percent",
    measures: "Client sessions (the collector's own included) as a share of max_connections",
    direction: "above",
    warning: 75,
    critical: 90,
    remedy:
      "Put a connection pooler (PgBouncer) in front of the server, close idle sessions in the applications, or raise max_connections (needs a restart and memory).",
  },
  {
    name: "replication_lag",
    title: "Replication lag",
    category: "replication",
    unit: "seconds",
    measures: "Longest replay lag of a standby streaming from this server",
    direction: "above",
    warning: 60,
    critical: 300,
    remedy:
      "Check the standby's disk and CPU, the network between the two, and long queries on the standby delaying replay (max_standby_streaming_delay).",
  },
  {
    name: "inactive_slots",
    title: "Inactive replication slots",
    category: "replication",
    unit: "bytes",
    measures: "WAL retained by replication slots no client uses",
    direction: "above",
    warning: 1,
    critical: 10 * GIB,
    remedy:
      "An inactive slot keeps WAL (and, for logical slots, old row versions) until its consumer returns, and can fill the disk. Reconnect the consumer or drop the slot (pg_drop_replication_slot); set max_slot_wal_keep_size as a safety net.",
  },
  {
    name: "cache_hit",
    title: "Cache hit ratio",
    category: "cache",
    unit: "percent",
    measures:
      "Share of block reads served by shared buffers over all databases since the statistics were reset (judged from 10,000 block reads on)",
    direction: "below",
    warning: 95,
    critical: 90,
    remedy:
      "The working set does not fit in memory. Raise shared_buffers (and effective_cache_size), add RAM, or find the queries reading most blocks (pg_stat_statements) and index them.",
  },
  {
    name: "long_transactions",
    title: "Long transactions",
    category: "sessions",
    unit: "seconds",
    measures: "Age of the oldest open transaction of a client session",
    direction: "above",
    warning: 300,
    critical: 3600,
    remedy:
      "Long transactions hold back vacuum and keep locks. Find them in pg_stat_activity, end them (pg_terminate_backend) if they are stuck, and fix the application that opens them; statement_timeout bounds single statements.",
  },
  {
    name: "idle_in_transaction",
    title: "Idle in transaction",
    category: "sessions",
    unit: "seconds",
    measures: "Longest time a session has been idle inside an open transaction",
    direction: "above",
    warning: 60,
    critical: 600,
    remedy:
      "The application opened a transaction and stopped talking. Fix it to commit or roll back promptly, and set idle_in_transaction_session_timeout so that the server ends such sessions.",
  },
  {
    name: "invalid_constraints",
    title: "Constraints not validated",
    category: "tables",
    unit: "count",
    measures: "Constraints added NOT VALID and never validated: existing rows are not checked",
    direction: "above",
    warning: 1,
    critical: null,
    remedy:
      "Run ALTER TABLE ... VALIDATE CONSTRAINT (it takes only a SHARE UPDATE EXCLUSIVE lock); fix the rows it reports first.",
  },
];

const byName = new Map(HEALTH_CHECKS.map((check) => [check.name, check]));

/** A check of the catalogue by name. */
export function findHealthCheck(name: string): HealthCheckDefinition | undefined {
  return byName.get(name);
}

/** The status a value reaches; null (nothing to judge: no standby, too few reads) is ok. */
export function statusOf(
  check: HealthCheckDefinition,
  value: number | null,
): Exclude<HealthStatus, "unknown"> {
  if (value === null) {
    return "ok";
  }
  const reaches = (threshold: number) =>
    check.direction === "above" ? value >= threshold : value <= threshold;
  if (check.critical !== null && reaches(check.critical)) {
    return "critical";
  }
  return reaches(check.warning) ? "warning" : "ok";
}

/** Objects a check lists besides its value, at most this many. */
export const MAX_FINDINGS = 20;

export type HealthFinding = Record<string, string | number | boolean | null>;

/*
 * Each check's SQL reads the latest collection of its probe ($1 the connections, ($2, $3] the
 * window of fresh collections) and gives one row per connection with fresh data:
 * (connection_id, value float8 or null, findings jsonb). A connection without one is unknown.
 */

/**
 * Rows of each connection's latest run of a server-wide probe, when that run is within the window.
 * probe_runs knows of every run, those that stored no row too: a slot dropped since, or a standby
 * gone, is not read from an older run.
 */
const latestServerRows = (
  probe: string,
) => `(select ${readerColumns(probe)} from ${serverSources("$1::int[]")} c
    join public.probe_runs l on l.connection_id = c.source_id and l.probe_name = '${probe}'
      and l.last_run_at > $2::timestamptz and l.last_run_at <= $3::timestamptz
    join metrics.${probe} r on r.connection_id = l.connection_id and r.collected_at = l.last_run_at)`;

/**
 * Rows of the latest collection of each database of a per-database probe within the window, each
 * database from the connection of the server that collects it.
 */
const latestDatabaseRows = (
  probe: string,
) => `(select ${readerColumns(probe)} from ${databaseSources("$1::int[]")} c
    cross join lateral (select database_name, max(collected_at) as at from ${probeRunsTable(probe)}
      where connection_id = c.source_id and collected_at > $2::timestamptz and collected_at <= $3::timestamptz
      group by database_name) l
    join metrics.${probe} r on r.connection_id = c.source_id and r.database_name = l.database_name
      and r.collected_at = l.at
    where ${readsDatabaseRow("r", "c")})`;

/** The columns of a probe's rows read for connection `c` (rows stored under another connection). */
const readerColumns = (probe: string) => {
  const spec = findProbeSpec(probe);
  if (!spec) {
    throw new Error(`no probe ${probe}`);
  }
  const own = [
    ...(spec.scope === "database" ? ["database_name"] : []),
    "collected_at",
    ...spec.columns.map((column) => column.name),
  ];
  return ["c.connection_id", ...own.map((name) => `r."${name}"`)].join(", ");
};

/** Connections whose latest run of a server-wide probe is within the window, rows or none. */
const freshConnections = (probe: string) => `(select c.connection_id from ${serverSources("$1::int[]")} c
    join public.probe_runs l on l.connection_id = c.source_id and l.probe_name = '${probe}'
      and l.last_run_at > $2::timestamptz and l.last_run_at <= $3::timestamptz)`;

/** jsonb of a finding's fields, ordered by `order`, for the rows where `condition` holds. */
const findingsOf = (fields: string, condition: string, order: string) =>
  `coalesce(jsonb_agg(jsonb_build_object(${fields}) order by ${order}) filter (where ${condition}), '[]'::jsonb)`;

const objectFields = `'database', database_name, 'schema', schemaname, 'table', relname, 'name', object_name`;

/** A count of pg_object_health findings of one kind. */
const objectCount = (kind: string) => `
  select connection_id, (count(*) filter (where kind = '${kind}'))::float8 as value,
    ${findingsOf(`${objectFields}, 'size_bytes', size_bytes::float8, 'detail', detail`, `kind = '${kind}'`, "size_bytes desc nulls last, object_name")} as findings
  from ${latestDatabaseRows("pg_object_health")} o group by connection_id`;

/** The largest estimated waste of one kind of bloat, among relations at least 30 % bloated. */
const bloat = (kind: string, warning: number) => {
  const flagged = `kind = '${kind}' and value >= 0.3 * size_bytes::float8`;
  return `
  select connection_id, coalesce(max(value) filter (where ${flagged}), 0) as value,
    ${findingsOf(`${objectFields}, 'wasted_bytes', value, 'size_bytes', size_bytes::float8`, `${flagged} and value >= ${warning}`, "value desc")} as findings
  from ${latestDatabaseRows("pg_object_health")} o group by connection_id`;
};

/** The largest age among the databases of the latest pg_database collection. */
const databaseAge = (column: string, warning: number) => `
  select connection_id, max(${column})::float8 as value,
    ${findingsOf(`'database', datname, 'age', ${column}`, `${column} >= ${warning}`, `${column} desc`)} as findings
  from ${latestServerRows("pg_database")} d group by connection_id`;

/** Seconds from a session timestamp to its collection. */
const sessionSeconds = (column: string) => `extract(epoch from collected_at - ${column})::float8`;

/** The longest of a duration over client sessions of the latest pg_stat_activity collection. */
const sessionDuration = (column: string, condition: string, warning: number) => `
  select connection_id,
    coalesce(max(${sessionSeconds(column)}) filter (where ${condition}), 0) as value,
    ${findingsOf(
      `'pid', pid, 'database', datname, 'user', usename, 'application', application_name, 'state', state,
       'seconds', round(${sessionSeconds(column)}::numeric, 1)::float8, 'query', left(query, 200)`,
      `${condition} and ${sessionSeconds(column)} >= ${warning}`,
      `${column}`,
    )} as findings
  from ${latestServerRows("pg_stat_activity")} a group by connection_id`;

const limit = (name: string) => findHealthCheck(name)?.warning as number;

/** Each check's SQL (see above). */
const CHECK_SQL: Readonly<Record<string, string>> = {
  invalid_indexes: objectCount("invalid_index"),
  duplicate_indexes: objectCount("duplicate_index"),
  unused_indexes: objectCount("unused_index"),
  invalid_constraints: objectCount("invalid_constraint"),
  index_bloat: bloat("index_bloat", limit("index_bloat")),
  table_bloat: bloat("table_bloat", limit("table_bloat")),
  sequences: `
    select connection_id, coalesce(max(value) filter (where kind = 'sequence'), 0) as value,
      ${findingsOf(`${objectFields}, 'used_percent', round(value::numeric, 2)::float8, 'detail', detail`, `kind = 'sequence' and value >= ${limit("sequences")}`, "value desc")} as findings
    from ${latestDatabaseRows("pg_object_health")} o group by connection_id`,
  dead_tuples: `
    select connection_id,
      coalesce(max(100.0 * n_dead_tup / (n_live_tup + n_dead_tup)) filter (where n_dead_tup >= 10000), 0)::float8
        as value,
      ${findingsOf(
        `'database', database_name, 'schema', schemaname, 'table', relname, 'dead_tuples', n_dead_tup::float8,
         'live_tuples', n_live_tup::float8, 'dead_percent', round((100.0 * n_dead_tup / (n_live_tup + n_dead_tup))::numeric, 2)::float8,
         'last_autovacuum', last_autovacuum`,
        `n_dead_tup >= 10000 and 100.0 * n_dead_tup / (n_live_tup + n_dead_tup) >= ${limit("dead_tuples")}`,
        "n_dead_tup desc",
      )} as findings
    from ${latestDatabaseRows("pg_stat_all_tables")} t group by connection_id`,
  xid_age: databaseAge("age_datfrozenxid", limit("xid_age")),
  multixact_age: databaseAge("age_datminmxid", limit("multixact_age")),
  // pg_server_info is stored when it changes: its latest snapshot, however old.
  connections: `
    select a.connection_id,
      (100.0 * (count(*) filter (where a.backend_type = 'client backend') + 1) / max(i.max_connections))::float8 as value,
      jsonb_build_array(jsonb_build_object('client_sessions', count(*) filter (where a.backend_type = 'client backend') + 1,
        'max_connections', max(i.max_connections))) as findings
    from ${latestServerRows("pg_stat_activity")} a
    join ${serverSources("$1::int[]")} server on server.connection_id = a.connection_id
    cross join lateral (select max_connections from metrics.pg_server_info
      where connection_id = server.source_id and collected_at <= $3::timestamptz
      order by collected_at desc limit 1) i
    group by a.connection_id`,
  long_transactions: sessionDuration(
    "xact_start",
    "backend_type = 'client backend' and xact_start is not null",
    limit("long_transactions"),
  ),
  idle_in_transaction: sessionDuration(
    "state_change",
    "state like 'idle in transaction%'",
    limit("idle_in_transaction"),
  ),
  // A fresh run without rows: no standby, or no slot.
  replication_lag: `
    select f.connection_id, max(extract(epoch from r.replay_lag))::float8 as value,
      ${findingsOf(
        `'application', r.application_name, 'client_addr', host(r.client_addr), 'state', r.state,
         'replay_lag_seconds', extract(epoch from r.replay_lag)::float8`,
        `r.pid is not null`,
        "r.replay_lag desc nulls last",
      )} as findings
    from ${freshConnections("pg_stat_replication")} f
    left join ${latestServerRows("pg_stat_replication")} r on r.connection_id = f.connection_id and r.role = 'primary'
    group by f.connection_id`,
  inactive_slots: `
    select f.connection_id, coalesce(sum(s.retained_bytes) filter (where not s.active), 0)::float8 as value,
      ${findingsOf(
        `'slot', s.slot_name, 'type', s.slot_type, 'wal_status', s.wal_status, 'retained_bytes', s.retained_bytes::float8`,
        "not s.active",
        "s.retained_bytes desc nulls last",
      )} as findings
    from ${freshConnections("pg_replication_slots")} f
    left join ${latestServerRows("pg_replication_slots")} s on s.connection_id = f.connection_id
    group by f.connection_id`,
  cache_hit: `
    select connection_id,
      case when sum(blks_hit + blks_read) >= 10000
        then (100.0 * sum(blks_hit) / sum(blks_hit + blks_read))::float8 end as value,
      jsonb_build_array(jsonb_build_object('blocks_hit', sum(blks_hit)::float8, 'blocks_read', sum(blks_read)::float8))
        as findings
    from ${latestDatabaseRows("pg_stat_database")} d group by connection_id`,
};

/** The probes whose tables each check reads (all must exist for it to run). */
const CHECK_TABLES: Readonly<Record<string, readonly string[]>> = {
  invalid_indexes: ["pg_object_health"],
  duplicate_indexes: ["pg_object_health"],
  unused_indexes: ["pg_object_health"],
  invalid_constraints: ["pg_object_health"],
  index_bloat: ["pg_object_health"],
  table_bloat: ["pg_object_health"],
  sequences: ["pg_object_health"],
  dead_tuples: ["pg_stat_all_tables"],
  xid_age: ["pg_database"],
  multixact_age: ["pg_database"],
  connections: ["pg_stat_activity", "pg_server_info"],
  long_transactions: ["pg_stat_activity"],
  idle_in_transaction: ["pg_stat_activity"],
  replication_lag: ["pg_stat_replication"],
  inactive_slots: ["pg_replication_slots"],
  cache_hit: ["pg_stat_database"],
};

/** Every probe a health check reads. */
export const HEALTH_CHECK_PROBES: readonly string[] = [...new Set(Object.values(CHECK_TABLES).flat())];

/**
 * How old the latest collection a check reads may be: twice the longest interval of the probes it
 * reads (snapshot probes, stored only when they change, aside), and at least a minute. Older data
 * leaves the check unknown.
 */
function freshnessSeconds(checkName: string): number {
  const intervals = (CHECK_TABLES[checkName] ?? [])
    .map((probe) => findProbeSpec(probe))
    .filter((spec) => spec && !spec.snapshot)
    .map((spec) => spec?.intervalSeconds ?? 60);
  return Math.max(60, 2 * Math.max(...intervals));
}

export interface HealthCheckResult {
  connectionId: number;
  check: string;
  status: HealthStatus;
  value: number | null;
  findings: HealthFinding[];
}

/** Told of a check whose SQL failed (a metrics table of another layout, say): it is left unknown. */
export type HealthCheckFailure = (check: string, error: unknown) => void;

/**
 * Every check for `connectionIds` from the latest collected data at `now`. Each connection answers
 * for its whole server, and connections that read the same rows of it (`sameReadingConnections`:
 * usually every connection of a server) are evaluated once, as one of them: a server reached by a
 * hundred connections costs one evaluation, not a hundred.
 */
export async function evaluateHealthChecks(
  sql: Sql,
  connectionIds: readonly number[],
  now: Date,
  onFailure: HealthCheckFailure = () => {},
): Promise<HealthCheckResult[]> {
  if (connectionIds.length === 0) {
    return [];
  }
  const readsAs = await sameReadingConnections(sql, connectionIds);
  const tables = [...new Set(Object.values(CHECK_TABLES).flat())];
  const present = new Set(
    (
      await sql<{ name: string }[]>`
        select name from unnest(${tables}::text[]) as name where to_regclass('metrics.' || name) is not null`
    ).map((row) => row.name),
  );
  const ids = [...new Set(connectionIds.map((id) => readsAs.get(id) ?? id))];
  const results = await Promise.all(
    HEALTH_CHECKS.map(async (check) => {
      const measured = new Map<number, { value: number | null; findings: HealthFinding[] }>();
      if ((CHECK_TABLES[check.name] ?? []).every((table) => present.has(table))) {
        const since = new Date(now.getTime() - freshnessSeconds(check.name) * 1000);
        const rows = await sql
          .unsafe<{ connection_id: number; value: number | null; findings: HealthFinding[] }[]>(
            CHECK_SQL[check.name] as string,
            [ids, since.toISOString(), now.toISOString()],
          )
          .catch((error: unknown) => {
            onFailure(check.name, error);
            return [];
          });
        for (const row of rows) {
          measured.set(row.connection_id, {
            value: row.value,
            findings: row.findings.slice(0, MAX_FINDINGS),
          });
        }
      }
      return connectionIds.map((connectionId): HealthCheckResult => {
        const found = measured.get(readsAs.get(connectionId) ?? connectionId);
        return found
          ? { connectionId, check: check.name, status: statusOf(check, found.value), ...found }
          : { connectionId, check: check.name, status: "unknown", value: null, findings: [] };
      });
    }),
  );
  return results.flat();
}

/**
 * Evaluates every check of every monitored connection and records the results: the latest in
 * `health_check_status` (written when it changed), when in `health_check_evaluations`, changes of
 * known status in `health_check_changes`. One alerter at a time
 * (the lock), so that a change is recorded once.
 */
export async function recordHealthChecks(sql: Sql, now: Date, onFailure?: HealthCheckFailure): Promise<void> {
  const ids = (await sql<{ id: number }[]>`select id from connections where is_monitored order by id`).map(
    (row) => row.id,
  );
  const results = await evaluateHealthChecks(sql, ids, now, onFailure);
  if (results.length === 0) {
    return;
  }
  const column = <K extends keyof HealthCheckResult>(key: K) => results.map((result) => result[key]);
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${advisoryLocks.healthChecks})`;
    await tx.unsafe(
      `with evaluated as (
         -- Findings as JSON text, made jsonb here: a jsonb[] parameter was encoded once more by
         -- the client (Drizzle's serializers on the shared pool), storing each as a jsonb string.
         select connection_id, check_name, status, value, findings::jsonb as findings
         from unnest($1::int[], $2::text[], $3::text[], $4::float8[], $5::text[])
           as e(connection_id, check_name, status, value, findings)
         where exists (select 1 from connections c where c.id = e.connection_id)),
       previous as (
         select s.connection_id, s.check_name, s.status, s.known_status from health_check_status s
         join evaluated e on e.connection_id = s.connection_id and e.check_name = s.check_name),
       changes as (
         insert into health_check_changes (connection_id, check_name, previous_status, status, value, changed_at)
         select e.connection_id, e.check_name, coalesce(p.known_status, 'ok'), e.status, e.value, $6::timestamptz
         from evaluated e left join previous p on p.connection_id = e.connection_id and p.check_name = e.check_name
         where e.status <> 'unknown' and e.status <> coalesce(p.known_status, 'ok')),
       evaluations as (
         insert into health_check_evaluations (connection_id, evaluated_at)
         select distinct connection_id, $6::timestamptz from evaluated
         on conflict (connection_id) do update set evaluated_at = excluded.evaluated_at)
       insert into health_check_status as s
         (connection_id, check_name, status, known_status, value, findings, changed_at)
       select e.connection_id, e.check_name, e.status,
         case when e.status = 'unknown' then coalesce(p.known_status, 'ok') else e.status end,
         e.value, e.findings, $6::timestamptz
       from evaluated e left join previous p on p.connection_id = e.connection_id and p.check_name = e.check_name
       on conflict (connection_id, check_name) do update set
         status = excluded.status, known_status = excluded.known_status, value = excluded.value,
         findings = excluded.findings,
         changed_at = case when s.status = excluded.status then s.changed_at else excluded.changed_at end
       -- Only a result that changed: a server's findings (up to 20 objects of any of its databases)
       -- are every connection's, and rewriting each check's row at every pass cost 2 GB a day at
       -- 1,000 databases (when each connection's checks ran is health_check_evaluations).
       where (s.status, s.known_status, s.value, s.findings)
         is distinct from (excluded.status, excluded.known_status, excluded.value, excluded.findings)`,
      [
        column("connectionId"),
        column("check"),
        column("status"),
        column("value"),
        results.map((result) => JSON.stringify(result.findings)),
        now.toISOString(),
      ] as never[],
    );
  });
}
