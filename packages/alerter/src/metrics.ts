import type { Sql } from "@dbmon/datastore";
import { collectedDatabaseJoin } from "@dbmon/datastore";
import { findProbeSpec, SYSTEM_SCHEMAS_SQL, storedOncePerServer } from "@dbmon/monitoring";
import { loadPerVcpu, maxBlockedSeconds } from "./activity-metrics.js";
import { AUTOVACUUM_FRESHNESS_SECONDS, updateAutovacuumCrossings } from "./autovacuum-crossings.js";
import {
  collected,
  collectedRuns,
  ONE_READER_PER_SERVER,
  SERVER_READERS,
  seconds,
  settingAt,
} from "./metric-sql.js";

/**
 * How each rule metric is computed from collected data. A definition's query gives the metric's value
 * at every collection of its first table in the range ($2, $1] (timestamptz): rows (connection_id,
 * database_name, object_name, collected_at, value), database_name and object_name null when the
 * metric is about the whole server. The alerter's current value is the row of the latest collection
 * (`currentValues`); baselines take every row of the lookback window (`baselines.ts`). One query
 * serves both, so the value scored and the values it is compared with cannot diverge. A metric whose
 * tables do not exist (yet) produces nothing.
 */
export interface MetricDefinition {
  /** Tables of the `metrics` schema the query reads; the first one's collections are the samples. */
  tables: [string, ...string[]];
  /** How old the latest collection may be to give a current value; null: any age. */
  freshnessSeconds: number | null;
  sql: string;
  /**
   * false: no anomaly baselines. A worst-table metric's series is named by whichever table is worst
   * at each collection, so it has no stable history to learn from, and reading a week of every
   * table's statistics was most of a recalculation's cost.
   */
  learnsBaselines?: false;
  /**
   * The value depends on the connected database (its probe runs per connection, not per server):
   * rows without a database still differ between connections of one server, so they are not
   * whole-server values (`isServerWide`).
   */
  readsConnectedDatabase?: true;
  /**
   * Every value is its server's, whichever of the server's connections it is read under, though its
   * tables are not a server-wide probe's (the activity sampler's): its values are whole-server
   * (`isServerWide`).
   */
  wholeServer?: true;
  /**
   * The values of a server-wide probe name databases, each under the connection that collects it
   * (`collectedDatabaseJoin`): every connection of a server reads its rows.
   */
  namesDatabases?: true;
  /**
   * The query compares each collection with the one before (counter increases), which may lie before
   * the range: the hourly partials read history from earlier than the hours they recompute. Other
   * metrics need nothing before the range, and reading it would only cost time.
   */
  readsPreviousCollection?: true;
  /**
   * Brings state the query reads up to date with the collections up to `now`, before each
   * evaluation (one alerter at a time): what would otherwise take the query a look through history.
   */
  prepare?: (sql: Sql, now: Date) => Promise<void>;
  /**
   * For sources that are not a probe's collections (the activity sampler's tables): each
   * connection's latest sample time in ($2, $1], as rows (connection_id, collected_at), at which the
   * current value is read; the source says itself when a later tick found nothing to store.
   * Without it: the latest collection of the first table, unless a later run of its probe stored nothing.
   */
  latest?: string;
}

export interface MetricValue {
  connection_id: number;
  database_name: string | null;
  object_name: string | null;
  value: number;
}

/**
 * Whether a value of `metric` is a condition of the whole server (or its host) rather than of one
 * database or one connection: a row without a database from a server- or host-scope probe that the
 * collector runs once per server. Such values are the same through every connection of a server, so
 * they are evaluated once per server (`server-alerts.ts`). Per-database rows of server-wide probes
 * (age_percent) name their database and already count once (`collectedDatabaseJoin`). The activity
 * sampler's tables are no probe's: their samples are split among a server's connections by database,
 * so a rule over them is whole-server only when it sums the server's (`wholeServer`).
 */
export function isServerWide(metric: string, value: { database_name: string | null }): boolean {
  const definition = metricDefinitions[metric];
  const scope = definition ? findProbeSpec(definition.tables[0])?.scope : undefined;
  return (
    value.database_name === null &&
    (definition?.wholeServer === true ||
      ((scope === "server" || scope === "host") && definition?.readsConnectedDatabase !== true))
  );
}

/**
 * Whether every value of `definition` is whole-server (`isServerWide`): its first table is a
 * server-wide probe's, and it names neither a database nor the connected one. Such values are kept
 * once per server, so reading each server's rows once gives the same evaluation.
 */
export function wholeServerOnly(definition: MetricDefinition): boolean {
  const probe = findProbeSpec(definition.tables[0]);
  return (
    probe !== undefined &&
    storedOncePerServer(probe) &&
    definition.readsConnectedDatabase !== true &&
    definition.namesDatabases !== true &&
    definition.latest === undefined
  );
}

/** Tables of the metrics schema that exist now (views: the probes stored as changed rows). */
export async function existingMetricTables(sql: Sql): Promise<Set<string>> {
  const rows = await sql<{ name: string }[]>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'metrics' and c.relkind in ('r', 'p', 'v')`;
  return new Set(rows.map((row) => row.name));
}

const FIVE_MINUTES = 300;
const FIFTEEN_MINUTES = 900;
const THIRTY_MINUTES = 1800;

/** Columns that identify one collection of a table: database-scoped probes collect per database. */
const collectionKey = (table: string) =>
  findProbeSpec(table)?.scope === "database" ? "connection_id, database_name" : "connection_id";

/**
 * The values of the latest collection of each series at `now`, when that collection is at most the
 * metric's freshness window old.
 */
export async function currentValues(
  sql: Sql,
  definition: MetricDefinition,
  now: Date,
  options: {
    /** Only the values of the connection each server's rows are stored under, for a whole-server-only metric. */
    oneReaderPerServer?: boolean;
  } = {},
): Promise<MetricValue[]> {
  const [table] = definition.tables;
  const key = collectionKey(table);
  const freshest =
    definition.freshnessSeconds === null
      ? "-infinity"
      : new Date(now.getTime() - definition.freshnessSeconds * 1000).toISOString();
  const oldest = await sinceOldestLatest(sql, definition, freshest, now);
  if (definition.latest) {
    return sql.unsafe<MetricValue[]>(atOwnLatest(definition.sql, definition.latest), [
      now.toISOString(),
      oldest,
    ]);
  }
  const latest = `join (select ${key}, max(collected_at) as collected_at from ${collectedRuns(table)} a group by ${key}) latest
       using (${key}, collected_at)
     ${findProbeSpec(table)?.snapshot ? "" : `where not ${superseded(table)}`}`;
  const readers =
    options.oneReaderPerServer && wholeServerOnly(definition) ? `with ${ONE_READER_PER_SERVER} ` : "";
  return sql.unsafe<MetricValue[]>(
    `${readers}select s.connection_id, s.database_name, s.object_name, s.value from (${definition.sql}) s ${latest}`,
    [now.toISOString(), oldest],
  );
}

/**
 * The values of `values` at their connection's time in `latest`, without a join: a source that
 * names its own latest (the activity sampler's) has its newest rows past the statistics of the
 * week's partition, so the planner estimates a row or two for both sides, and a join it plans as a
 * nested loop reads one side once per row of the other (seconds at 1,000 connections). One sort of
 * both instead: a value is kept when a row of `latest` shares its connection and time.
 */
const atOwnLatest = (values: string, latest: string) => `
  select connection_id, database_name, object_name, value from (
    select u.*, bool_or(u.is_latest) over (partition by u.connection_id, u.collected_at) as current
    from (select s.connection_id, s.database_name, s.object_name, s.collected_at, s.value, false as is_latest
          from (${values}) s
          union all
          select l.connection_id, null, null, l.collected_at, null, true from (${latest}) l) u) v
  where current and not is_latest`;

/** Each connection's runs of a probe (`reader_id`): its server's for a server-wide one. */
const runsOf = (table: string) => {
  const probe = findProbeSpec(table);
  return probe && storedOncePerServer(probe)
    ? `(select s.connection_id as reader_id, p.* from ${SERVER_READERS} s
        join probe_runs p on p.connection_id = s.server_connection_id)`
    : "(select connection_id as reader_id, * from probe_runs)";
};

/**
 * The window's start for a changed-rows probe (rows rebuilt one index lookup each): just before the
 * oldest of the series' latest collections, which are all the evaluation keeps. A collection older
 * than every series' latest is read only to be dropped by the join on the latest; at short
 * intervals (a window of hundreds of runs) rebuilding them would dominate the pass. Definitions
 * that read earlier collections, or pick their own latest, keep the whole window.
 */
async function sinceOldestLatest(
  sql: Sql,
  definition: MetricDefinition,
  oldest: string,
  now: Date,
): Promise<string> {
  const [table] = definition.tables;
  if (!findProbeSpec(table)?.changedRows || definition.readsPreviousCollection || definition.latest) {
    return oldest;
  }
  const [row] = await sql.unsafe<{ since: string | null }[]>(
    `select (min(collected_at) - interval '1 microsecond')::text as since from (
       select max(collected_at) as collected_at from ${collectedRuns(table)} a
       group by ${collectionKey(table)}) latest`,
    [now.toISOString(), oldest],
  );
  return row?.since ?? oldest;
}

/**
 * Whether a later run of the probe (up to `now`) superseded the latest collection. A run that finds
 * nothing (no replication slot left, no standby attached, no recent Spock exception, nothing in one
 * database) stores no rows, only its time in `probe_runs`: without this, the previous run's rows
 * would stand for the whole freshness window and keep their alerts open for up to 15 minutes after
 * the condition ended. Snapshot probes store nothing while unchanged: their latest rows stand.
 */
const superseded = (table: string) => `exists (
    select 1 from ${runsOf(table)} r where r.reader_id = latest.connection_id and r.probe_name = '${table}'
      and r.last_run_at > latest.collected_at and r.last_run_at <= $1::timestamptz)`;

/**
 * Increases of counters between consecutive collections of each series (negative after a statistics
 * reset); `consecutive` says the previous collection is at most `seconds` older: an increase over a
 * longer gap (the collector was down) is not comparable with the others.
 */
const increases = (table: string, columns: string[], seconds: number) => {
  const key = collectionKey(table);
  return `(select ${key}, collected_at,
      ${columns.map((column) => `${column}::float8 - lag(${column}::float8) over w as ${column}`).join(", ")},
      collected_at - lag(collected_at) over w <= make_interval(secs => ${seconds}) as consecutive
    from ${collected(table)} a
    window w as (partition by ${key} order by collected_at))`;
};

/** A counter's increase since the previous collection, per server or per database. */
const delta = (table: string, column: string, seconds: number): MetricDefinition => ({
  tables: [table],
  freshnessSeconds: seconds,
  readsPreviousCollection: true,
  sql: `select connection_id, ${collectionKey(table) === "connection_id" ? "null::text as database_name" : "database_name"},
      null::text as object_name, collected_at, ${column} as value
    from ${increases(table, [column], seconds)} d where consecutive and ${column} >= 0`,
});

/**
 * Of rows (connection_id, database_name, object_name, collected_at, value), the object with the
 * highest value in each collection of each database (ties: the first by name). The highest value is
 * found by hashing: sorting every table of a week of collections is what would make it slow.
 */
const worstTablePerDatabase = (tables: MetricDefinition["tables"], rows: string): MetricDefinition => ({
  tables,
  freshnessSeconds: FIFTEEN_MINUTES,
  learnsBaselines: false,
  sql: `
  with v as materialized (${rows})
  select distinct on (connection_id, database_name, collected_at) connection_id, database_name, object_name,
    collected_at, value
  from v join (select connection_id, database_name, collected_at, max(value) as value from v
               group by connection_id, database_name, collected_at) worst
    using (connection_id, database_name, collected_at, value)
  order by connection_id, database_name, collected_at, object_name`,
});

const clientBackends = collected("pg_stat_activity", "backend_type = 'client backend'");

const SERVER = "null::text as database_name, null::text as object_name";

/**
 * Shared catalogs appear in every database's statistics: their dead tuples would raise the same
 * alert once per database and hide each database's own worst table.
 */
const SHARED_CATALOG = `schemaname = 'pg_catalog' and relname in ('pg_authid', 'pg_auth_members', 'pg_database',
  'pg_db_role_setting', 'pg_tablespace', 'pg_shdepend', 'pg_shdescription', 'pg_shseclabel',
  'pg_replication_origin', 'pg_subscription', 'pg_parameter_acl')`;

export const metricDefinitions: Record<string, MetricDefinition> = {
  "pg_settings.max_connections": {
    tables: ["pg_settings"],
    // Stored only when a setting changes: the latest snapshot holds however old it is.
    freshnessSeconds: null,
    sql: `select connection_id, ${SERVER}, collected_at, setting::float8 as value
          from ${collected("pg_settings", "name = 'max_connections'")} a`,
  },
  connection_utilization_percent: {
    tables: ["pg_stat_activity", "pg_settings"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select a.connection_id, ${SERVER}, a.collected_at,
            count(*)::float8 * 100 / nullif(coalesce(mc.value, 100), 0) as value
          from ${clientBackends} a ${settingAt("max_connections", "mc")}
          group by a.connection_id, a.collected_at, mc.value`,
  },
  "pg_stat_activity.count": {
    tables: ["pg_stat_activity"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at, count(*)::float8 as value
          from ${clientBackends} a group by connection_id, collected_at`,
  },
  "pg_stat_replication.lag_bytes": {
    tables: ["pg_stat_replication"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at,
            max(pg_wal_lsn_diff(sent_lsn::pg_lsn, replay_lsn::pg_lsn))::float8 as value
          from ${collected("pg_stat_replication", "role = 'primary' and sent_lsn is not null and replay_lsn is not null")} a
          group by connection_id, collected_at`,
  },
  "pg_replication_slots.inactive": {
    tables: ["pg_replication_slots"],
    freshnessSeconds: FIFTEEN_MINUTES,
    sql: `select connection_id, null::text as database_name, slot_name::text as object_name, collected_at, 1::float8 as value
          from ${collected("pg_replication_slots", "not active")} a`,
  },
  "pg_stat_replication.standby_disconnected": {
    tables: ["pg_stat_replication"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at,
            max(case when receiver_status is null then 1 else 0 end)::float8 as value
          from ${collected("pg_stat_replication", "role = 'standby'")} a group by connection_id, collected_at`,
  },
  "pg_node_role.subscription_worker_down": {
    // Publications, subscriptions and the Spock node are the connected database's.
    readsConnectedDatabase: true,
    tables: ["pg_node_role"],
    freshnessSeconds: FIFTEEN_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at,
            case when coalesce(active_subscription_count, 0) < coalesce(subscription_count, 0) then 1 else 0 end::float8 as value
          from ${collected("pg_node_role")} a`,
  },
  "pg_sys_disk_info.used_percent": {
    tables: ["pg_sys_disk_info"],
    freshnessSeconds: THIRTY_MINUTES,
    sql: `select connection_id, null::text as database_name, mount_point as object_name, collected_at,
            used_space::float8 * 100 / total_space as value
          from ${collected("pg_sys_disk_info", "total_space > 0")} a`,
  },
  table_bloat_ratio: worstTablePerDatabase(
    ["pg_stat_all_tables"],
    `
      select connection_id, database_name, schemaname || '.' || relname as object_name, collected_at,
        n_dead_tup::float8 * 100 / n_live_tup as value
      from ${collected("pg_stat_all_tables")} a
      where n_live_tup >= 1000 and schemaname not in ${SYSTEM_SCHEMAS_SQL}`,
  ),
  "pg_sys_cpu_usage_info.processor_time_percent": {
    // processor_time_percent is a Windows counter: system_stats on Linux and macOS, and the
    // collector's own reading of its host, leave it null and give the idle share instead.
    tables: ["pg_sys_cpu_usage_info"],
    freshnessSeconds: THIRTY_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at,
            coalesce(processor_time_percent, 100 - idle_mode_percent)::float8 as value
          from ${collected("pg_sys_cpu_usage_info", "coalesce(processor_time_percent, 100 - idle_mode_percent) is not null")} a`,
  },
  "pg_sys_memory_info.used_percent": {
    tables: ["pg_sys_memory_info"],
    freshnessSeconds: THIRTY_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at, used_memory::float8 * 100 / total_memory as value
          from ${collected("pg_sys_memory_info", "total_memory > 0")} a`,
  },
  "pg_sys_load_avg_info.load_avg_fifteen_minutes": {
    tables: ["pg_sys_load_avg_info"],
    freshnessSeconds: THIRTY_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at, load_avg_fifteen_minutes::float8 as value
          from ${collected("pg_sys_load_avg_info", "load_avg_fifteen_minutes is not null")} a`,
  },
  "pg_stat_activity.max_query_duration_seconds": {
    tables: ["pg_stat_activity"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at, max(${seconds("collected_at - query_start")}) as value
          from ${clientBackends} a where state = 'active' and query_start is not null
          group by connection_id, collected_at`,
  },
  "pg_stat_activity.blocked_count": {
    tables: ["pg_stat_activity"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at,
            count(*) filter (where wait_event_type = 'Lock')::float8 as value
          from ${clientBackends} a group by connection_id, collected_at`,
  },
  "pg_stat_activity.max_xact_duration_seconds": {
    tables: ["pg_stat_activity"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at, max(${seconds("collected_at - xact_start")}) as value
          from ${clientBackends} a where xact_start is not null group by connection_id, collected_at`,
  },
  "pg_stat_activity.idle_in_transaction_seconds": {
    tables: ["pg_stat_activity"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at,
            max(${seconds("collected_at - coalesce(state_change, xact_start)")}) as value
          from ${clientBackends} a
          where state in ('idle in transaction', 'idle in transaction (aborted)') group by connection_id, collected_at`,
  },
  age_percent: {
    // D12: the real age of datfrozenxid against autovacuum_freeze_max_age (the reference returned 50).
    // Every connection of a server lists all its databases: each one counts under the connection
    // that collects it, so one database is one series (and one alert), not one per connection.
    tables: ["pg_database", "pg_settings"],
    freshnessSeconds: THIRTY_MINUTES,
    namesDatabases: true,
    sql: `select a.connection_id, a.datname as database_name, null::text as object_name, a.collected_at,
            a.age_datfrozenxid::float8 * 100 / nullif(coalesce(fm.value, 200000000), 0) as value
          from ${collected("pg_database", "datallowconn and age_datfrozenxid is not null")} a
          ${collectedDatabaseJoin("a", "datname")}
          ${settingAt("autovacuum_freeze_max_age", "fm")}`,
  },
  "pg_stat_database.deadlocks_delta": delta("pg_stat_database", "deadlocks", THIRTY_MINUTES),
  "pg_stat_activity.max_lock_wait_seconds": {
    tables: ["pg_stat_activity"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at,
            max(${seconds("collected_at - coalesce(state_change, query_start)")}) as value
          from ${clientBackends} a where wait_event_type = 'Lock' group by connection_id, collected_at`,
  },
  "pg_stat_checkpointer.checkpoints_req_delta": delta(
    "pg_stat_checkpointer",
    "num_requested",
    THIRTY_MINUTES,
  ),
  // D12: the archiver's counters are collected with pg_stat_wal.
  "pg_stat_archiver.failed_count_delta": delta("pg_stat_wal", "failed_count", THIRTY_MINUTES),
  // Hours since the table crossed its autovacuum trigger (since its last vacuum), from the crossings
  // the alerter keeps (autovacuum-crossings.ts): a table never vacuumed counts from its crossing, not
  // from the epoch, without reading its history at every evaluation. The crossings are brought up to
  // date with each database's latest collection first (`prepare`), and name only tables of it past
  // their trigger: the runs are read, not every table's statistics again.
  table_last_autovacuum_hours: {
    ...worstTablePerDatabase(
      ["pg_stat_all_tables", "pg_settings"],
      `
      select a.connection_id, a.database_name, x.schema_name || '.' || x.relation_name as object_name,
        a.collected_at, ${seconds("a.collected_at - x.crossed_at")} / 3600 as value
      from ${collectedRuns("pg_stat_all_tables")} a
      join public.autovacuum_crossings x on x.connection_id = a.connection_id and x.database_name = a.database_name
      where a.collected_at >= x.crossed_at`,
    ),
    freshnessSeconds: AUTOVACUUM_FRESHNESS_SECONDS,
    prepare: updateAutovacuumCrossings,
  },
  "pg_stat_all_tables.dead_tuple_percent": worstTablePerDatabase(
    ["pg_stat_all_tables"],
    `
      select connection_id, database_name, schemaname || '.' || relname as object_name, collected_at,
        n_dead_tup::float8 * 100 / (n_live_tup + n_dead_tup) as value
      from ${collected("pg_stat_all_tables")} a
      where n_live_tup + n_dead_tup >= 1000 and not (${SHARED_CATALOG})`,
  ),
  "pg_stat_statements.slow_query_count": {
    tables: ["pg_stat_statements"],
    freshnessSeconds: FIFTEEN_MINUTES,
    // Statements are distinct per user: distinct queryids, by hashing rather than count(distinct)'s sort.
    sql: `select connection_id, database_name, null::text as object_name, collected_at,
            count(*) filter (where slow)::float8 as value
          from (select distinct connection_id, database_name, collected_at, queryid, mean_exec_time > 1000 as slow
                from ${collected("pg_stat_statements")} a) a
          group by connection_id, database_name, collected_at`,
  },
  "pg_stat_database.cache_hit_ratio": {
    tables: ["pg_stat_database"],
    freshnessSeconds: THIRTY_MINUTES,
    readsPreviousCollection: true,
    sql: `select connection_id, database_name, null::text as object_name, collected_at,
            blks_hit * 100 / (blks_hit + blks_read) as value
          from ${increases("pg_stat_database", ["blks_hit", "blks_read"], THIRTY_MINUTES)} d
          where consecutive and blks_hit >= 0 and blks_read >= 0 and blks_hit + blks_read >= 10000`,
  },
  "pg_stat_database.temp_files_delta": delta("pg_stat_database", "temp_files", THIRTY_MINUTES),
  "spock_exception_log.recent_count": {
    tables: ["spock_exception_log"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, database_name, null::text as object_name, collected_at, count(*)::float8 as value
          from ${collected("spock_exception_log")} a group by connection_id, database_name, collected_at`,
  },
  "spock_resolutions.recent_count": {
    tables: ["spock_resolutions"],
    freshnessSeconds: FIVE_MINUTES,
    sql: `select connection_id, database_name, null::text as object_name, collected_at, count(*)::float8 as value
          from ${collected("spock_resolutions")} a group by connection_id, database_name, collected_at`,
  },
  "pg_replication_slots.max_retained_bytes": {
    tables: ["pg_replication_slots"],
    freshnessSeconds: FIFTEEN_MINUTES,
    sql: `select connection_id, ${SERVER}, collected_at, max(retained_bytes::float8) as value
          from ${collected("pg_replication_slots")} a group by connection_id, collected_at`,
  },
  "activity_sampling.load_per_vcpu": loadPerVcpu,
  "activity_sampling.max_blocked_seconds": maxBlockedSeconds,
};
