/**
 * How each rule metric is computed from collected data. Every query takes the evaluation time as $1
 * and returns rows (connection_id, database_name, object_name, value): database_name and object_name
 * are null when the metric is about the whole server. A metric whose tables do not exist (yet)
 * produces nothing.
 */
export interface MetricDefinition {
  /** Tables of the `metrics` schema the query reads. */
  tables: string[];
  sql: string;
}

export interface MetricValue {
  connection_id: number;
  database_name: string | null;
  object_name: string | null;
  value: number;
}

/**
 * Whether a later run of the probe (up to the evaluation time) superseded rows collected at
 * `t.collected_at`. A run that finds nothing (no replication slot left, no standby attached, no
 * recent Spock exception, nothing in one database) stores no rows, only its time in `probe_runs`:
 * without this, the previous run's rows would stand for the whole freshness window and keep their
 * alerts open for up to 15 minutes after the condition ended.
 */
const superseded = (table: string) => `exists (
     select 1 from probe_runs r where r.connection_id = t.connection_id and r.probe_name = '${table}'
       and r.last_run_at > t.collected_at and r.last_run_at <= $1::timestamptz)`;

/** Rows of the latest collection per connection (server-scoped tables) within a freshness window. */
const latestServer = (table: string, window: string, where = "true") => `
  (select t.* from metrics.${table} t
   join (select connection_id, max(collected_at) as at from metrics.${table}
         where collected_at > $1::timestamptz - interval '${window}' and collected_at <= $1::timestamptz
         group by connection_id) l
     on l.connection_id = t.connection_id and l.at = t.collected_at
   where ${where} and not ${superseded(table)})`;

/** Rows of the latest collection per (connection, database) of a database-scoped table. */
const latestDatabase = (table: string, window: string) => `
  (select t.* from metrics.${table} t
   join (select connection_id, database_name, max(collected_at) as at from metrics.${table}
         where collected_at > $1::timestamptz - interval '${window}' and collected_at <= $1::timestamptz
         group by connection_id, database_name) l
     on l.connection_id = t.connection_id and l.database_name = t.database_name and l.at = t.collected_at
   where not ${superseded(table)})`;

/** The latest stored value of a setting (pg_settings is stored only when it changes). */
const setting = (name: string, fallback: number) => `
  coalesce((select s.setting::float8 from metrics.pg_settings s
            where s.connection_id = a.connection_id and s.name = '${name}' and s.collected_at <= $1::timestamptz
            order by s.collected_at desc limit 1), ${fallback})`;

/**
 * Increase of a counter between the two latest samples of each series (null after a statistics
 * reset, which makes the counter go down).
 */
const delta = (table: string, column: string, window: string, perDatabase: boolean) => {
  const key = perDatabase ? "connection_id, database_name" : "connection_id";
  return `
  select connection_id, ${perDatabase ? "database_name" : "null::text as database_name"}, null::text as object_name,
    value from (
    select ${key}, ${column}::float8 - lag(${column}::float8) over w as value,
      row_number() over (partition by ${key} order by collected_at desc) as n
    from metrics.${table}
    where collected_at > $1::timestamptz - interval '${window}' and collected_at <= $1::timestamptz
    window w as (partition by ${key} order by collected_at)
  ) d where n = 1 and value is not null and value >= 0`;
};

const clientBackends = (window: string) =>
  latestServer("pg_stat_activity", window, "t.backend_type = 'client backend'");

const seconds = (expression: string) => `extract(epoch from ${expression})::float8`;

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
    sql: `select distinct on (connection_id) connection_id, null::text as database_name, null::text as object_name,
            setting::float8 as value
          from metrics.pg_settings where name = 'max_connections' and collected_at <= $1::timestamptz
          order by connection_id, collected_at desc`,
  },
  connection_utilization_percent: {
    tables: ["pg_stat_activity", "pg_settings"],
    sql: `select a.connection_id, null::text as database_name, null::text as object_name,
            count(*)::float8 * 100 / nullif(${setting("max_connections", 100)}, 0) as value
          from ${clientBackends("5 minutes")} a group by a.connection_id`,
  },
  "pg_stat_activity.count": {
    tables: ["pg_stat_activity"],
    sql: `select connection_id, null::text as database_name, null::text as object_name, count(*)::float8 as value
          from ${clientBackends("5 minutes")} a group by connection_id`,
  },
  "pg_stat_replication.lag_bytes": {
    tables: ["pg_stat_replication"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            max(pg_wal_lsn_diff(sent_lsn::pg_lsn, replay_lsn::pg_lsn))::float8 as value
          from ${latestServer("pg_stat_replication", "5 minutes", "t.role = 'primary' and t.sent_lsn is not null and t.replay_lsn is not null")} a
          group by connection_id`,
  },
  "pg_replication_slots.inactive": {
    tables: ["pg_replication_slots"],
    sql: `select connection_id, null::text as database_name, slot_name::text as object_name, 1::float8 as value
          from ${latestServer("pg_replication_slots", "15 minutes", "not t.active")} a`,
  },
  "pg_stat_replication.standby_disconnected": {
    tables: ["pg_stat_replication"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            max(case when receiver_status is null then 1 else 0 end)::float8 as value
          from ${latestServer("pg_stat_replication", "5 minutes", "t.role = 'standby'")} a group by connection_id`,
  },
  "pg_node_role.subscription_worker_down": {
    tables: ["pg_node_role"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            case when coalesce(active_subscription_count, 0) < coalesce(subscription_count, 0) then 1 else 0 end::float8 as value
          from ${latestServer("pg_node_role", "15 minutes")} a`,
  },
  "pg_sys_disk_info.used_percent": {
    tables: ["pg_sys_disk_info"],
    sql: `select connection_id, null::text as database_name, mount_point as object_name,
            used_space::float8 * 100 / total_space as value
          from ${latestServer("pg_sys_disk_info", "30 minutes", "t.total_space > 0")} a`,
  },
  table_bloat_ratio: {
    tables: ["pg_stat_all_tables"],
    sql: `select distinct on (connection_id, database_name) connection_id, database_name,
            schemaname || '.' || relname as object_name, n_dead_tup::float8 * 100 / n_live_tup as value
          from ${latestDatabase("pg_stat_all_tables", "15 minutes")} a
          where n_live_tup >= 1000 and schemaname not in ('pg_catalog', 'information_schema', 'pg_toast')
          order by connection_id, database_name, value desc`,
  },
  "pg_sys_cpu_usage_info.processor_time_percent": {
    // processor_time_percent is a Windows counter: system_stats on Linux and macOS, and the
    // collector's own reading of its host, leave it null and give the idle share instead.
    tables: ["pg_sys_cpu_usage_info"],
    sql: `select connection_id, null::text as database_name, null::text as object_name, value from (
            select connection_id, coalesce(processor_time_percent, 100 - idle_mode_percent)::float8 as value
            from ${latestServer("pg_sys_cpu_usage_info", "30 minutes")} a) busy
          where value is not null`,
  },
  "pg_sys_memory_info.used_percent": {
    tables: ["pg_sys_memory_info"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            used_memory::float8 * 100 / total_memory as value
          from ${latestServer("pg_sys_memory_info", "30 minutes", "t.total_memory > 0")} a`,
  },
  "pg_sys_load_avg_info.load_avg_fifteen_minutes": {
    tables: ["pg_sys_load_avg_info"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            load_avg_fifteen_minutes::float8 as value
          from ${latestServer("pg_sys_load_avg_info", "30 minutes")} a where load_avg_fifteen_minutes is not null`,
  },
  "pg_stat_activity.max_query_duration_seconds": {
    tables: ["pg_stat_activity"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            max(${seconds("collected_at - query_start")}) as value
          from ${clientBackends("5 minutes")} a where state = 'active' and query_start is not null group by connection_id`,
  },
  "pg_stat_activity.blocked_count": {
    tables: ["pg_stat_activity"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            count(*) filter (where wait_event_type = 'Lock')::float8 as value
          from ${clientBackends("5 minutes")} a group by connection_id`,
  },
  "pg_stat_activity.max_xact_duration_seconds": {
    tables: ["pg_stat_activity"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            max(${seconds("collected_at - xact_start")}) as value
          from ${clientBackends("5 minutes")} a where xact_start is not null group by connection_id`,
  },
  "pg_stat_activity.idle_in_transaction_seconds": {
    tables: ["pg_stat_activity"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            max(${seconds("collected_at - coalesce(state_change, xact_start)")}) as value
          from ${clientBackends("5 minutes")} a
          where state in ('idle in transaction', 'idle in transaction (aborted)') group by connection_id`,
  },
  age_percent: {
    // D12: the real age of datfrozenxid against autovacuum_freeze_max_age (the reference returned 50).
    tables: ["pg_database", "pg_settings"],
    sql: `select a.connection_id, a.datname as database_name, null::text as object_name,
            a.age_datfrozenxid::float8 * 100 / nullif(${setting("autovacuum_freeze_max_age", 200_000_000)}, 0) as value
          from ${latestServer("pg_database", "30 minutes", "t.datallowconn and t.age_datfrozenxid is not null")} a`,
  },
  "pg_stat_database.deadlocks_delta": {
    tables: ["pg_stat_database"],
    sql: delta("pg_stat_database", "deadlocks", "30 minutes", true),
  },
  "pg_stat_activity.max_lock_wait_seconds": {
    tables: ["pg_stat_activity"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            max(${seconds("collected_at - coalesce(state_change, query_start)")}) as value
          from ${clientBackends("5 minutes")} a where wait_event_type = 'Lock' group by connection_id`,
  },
  "pg_stat_checkpointer.checkpoints_req_delta": {
    tables: ["pg_stat_checkpointer"],
    sql: delta("pg_stat_checkpointer", "num_requested", "30 minutes", false),
  },
  "pg_stat_archiver.failed_count_delta": {
    // D12: the archiver's counters are collected with pg_stat_wal.
    tables: ["pg_stat_wal"],
    sql: delta("pg_stat_wal", "failed_count", "30 minutes", false),
  },
  table_last_autovacuum_hours: {
    tables: ["pg_stat_all_tables", "pg_settings"],
    sql: `select distinct on (a.connection_id, a.database_name) a.connection_id, a.database_name,
            a.schemaname || '.' || a.relname as object_name,
            ${seconds("a.collected_at - coalesce(a.last_autovacuum, 'epoch'::timestamptz)")} / 3600 as value
          from ${latestDatabase("pg_stat_all_tables", "15 minutes")} a
          where a.n_dead_tup > ${setting("autovacuum_vacuum_threshold", 50)}
            + ${setting("autovacuum_vacuum_scale_factor", 0.2)} * a.n_live_tup
          order by a.connection_id, a.database_name, value desc`,
  },
  "pg_stat_all_tables.dead_tuple_percent": {
    tables: ["pg_stat_all_tables"],
    sql: `select distinct on (connection_id, database_name) connection_id, database_name,
            schemaname || '.' || relname as object_name,
            n_dead_tup::float8 * 100 / (n_live_tup + n_dead_tup) as value
          from ${latestDatabase("pg_stat_all_tables", "15 minutes")} a
          where n_live_tup + n_dead_tup >= 1000 and not (${SHARED_CATALOG})
          order by connection_id, database_name, value desc`,
  },
  "pg_stat_statements.slow_query_count": {
    tables: ["pg_stat_statements"],
    sql: `select connection_id, database_name, null::text as object_name,
            count(distinct queryid) filter (where mean_exec_time > 1000)::float8 as value
          from ${latestDatabase("pg_stat_statements", "15 minutes")} a group by connection_id, database_name`,
  },
  "pg_stat_database.cache_hit_ratio": {
    tables: ["pg_stat_database"],
    sql: `select connection_id, database_name, null::text as object_name, hit * 100 / (hit + reads) as value from (
            select connection_id, database_name,
              blks_hit::float8 - lag(blks_hit::float8) over w as hit,
              blks_read::float8 - lag(blks_read::float8) over w as reads,
              row_number() over (partition by connection_id, database_name order by collected_at desc) as n
            from metrics.pg_stat_database
            where collected_at > $1::timestamptz - interval '30 minutes' and collected_at <= $1::timestamptz
            window w as (partition by connection_id, database_name order by collected_at)
          ) d where n = 1 and hit >= 0 and reads >= 0 and hit + reads >= 10000`,
  },
  "pg_stat_database.temp_files_delta": {
    tables: ["pg_stat_database"],
    sql: delta("pg_stat_database", "temp_files", "30 minutes", true),
  },
  "spock_exception_log.recent_count": {
    tables: ["spock_exception_log"],
    sql: `select connection_id, database_name, null::text as object_name, count(*)::float8 as value
          from ${latestDatabase("spock_exception_log", "5 minutes")} a group by connection_id, database_name`,
  },
  "spock_resolutions.recent_count": {
    tables: ["spock_resolutions"],
    sql: `select connection_id, database_name, null::text as object_name, count(*)::float8 as value
          from ${latestDatabase("spock_resolutions", "5 minutes")} a group by connection_id, database_name`,
  },
  "pg_replication_slots.max_retained_bytes": {
    tables: ["pg_replication_slots"],
    sql: `select connection_id, null::text as database_name, null::text as object_name,
            max(retained_bytes::float8) as value
          from ${latestServer("pg_replication_slots", "15 minutes")} a group by connection_id`,
  },
};
