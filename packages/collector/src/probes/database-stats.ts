import { collectRelation, column, columns, type RelationQuery, relationProbe } from "./relation-probe.js";
import type { ProbeDefinition, ProbeRow } from "./types.js";

// Per-database statistics probes, run in every connectable database (PostgreSQL 14 to 18).

export const pgStatDatabase = relationProbe({
  name: "pg_stat_database",
  scope: "database",
  intervalSeconds: 300,
  retentionDays: 7,
  relations: { d: "pg_stat_database" },
  main: "d",
  columns: [
    column("datid", "bigint", "d.datid::int8", ["d.datid"]),
    column("datname", "text"),
    column("numbackends", "integer"),
    ...columns(
      "bigint",
      "xact_commit",
      "xact_rollback",
      "blks_read",
      "blks_hit",
      "tup_returned",
      "tup_fetched",
      "tup_inserted",
      "tup_updated",
      "tup_deleted",
      "conflicts",
      "temp_files",
      "temp_bytes",
      "deadlocks",
      "checksum_failures",
    ),
    column("checksum_last_failure", "timestamptz"),
    ...columns("double precision", "blk_read_time", "blk_write_time", "session_time", "active_time"),
    column("idle_in_transaction_time", "double precision"),
    ...columns("bigint", "sessions", "sessions_abandoned", "sessions_fatal", "sessions_killed"),
    column("stats_reset", "timestamptz"),
  ],
  from: () => "pg_catalog.pg_stat_database d",
  tail: "where d.datname = current_database()",
});

export const pgStatDatabaseConflicts = relationProbe({
  name: "pg_stat_database_conflicts",
  scope: "database",
  intervalSeconds: 300,
  retentionDays: 7,
  relations: { d: "pg_stat_database_conflicts" },
  main: "d",
  columns: [
    column("datid", "bigint", "d.datid::int8", ["d.datid"]),
    column("datname", "text"),
    ...columns(
      "bigint",
      "confl_tablespace",
      "confl_lock",
      "confl_snapshot",
      "confl_bufferpin",
      "confl_deadlock",
      "confl_active_logicalslot",
    ),
  ],
  from: () => "pg_catalog.pg_stat_database_conflicts d",
  tail: "where d.datname = current_database()",
});

function statio(name: string) {
  return column(name, "bigint", `io.${name}`, [`io.${name}`]);
}

export const pgStatAllTables = relationProbe({
  name: "pg_stat_all_tables",
  scope: "database",
  intervalSeconds: 300,
  retentionDays: 7,
  relations: { t: "pg_stat_all_tables", io: "pg_statio_all_tables" },
  main: "t",
  columns: [
    ...columns("text", "schemaname", "relname"),
    ...columns("bigint", "seq_scan", "seq_tup_read", "idx_scan", "idx_tup_fetch"),
    ...columns("bigint", "n_tup_ins", "n_tup_upd", "n_tup_del", "n_tup_hot_upd", "n_live_tup", "n_dead_tup"),
    column("n_mod_since_analyze", "bigint"),
    ...columns("timestamptz", "last_vacuum", "last_autovacuum", "last_analyze", "last_autoanalyze"),
    ...columns("bigint", "vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count"),
    ...["heap", "idx", "toast", "tidx"].flatMap((kind) => [
      statio(`${kind}_blks_read`),
      statio(`${kind}_blks_hit`),
    ]),
    // Autovacuum's own row estimate (-1 before the first vacuum or analyze): its trigger is computed
    // from it, not from n_live_tup, which is 0 in a new database's catalogs until they are analyzed.
    column("reltuples", "double precision", "c.reltuples", []),
  ],
  from: (has) =>
    `${
      has("io")
        ? "pg_catalog.pg_stat_all_tables t left join pg_catalog.pg_statio_all_tables io on io.relid = t.relid"
        : "pg_catalog.pg_stat_all_tables t"
    } left join pg_catalog.pg_class c on c.oid = t.relid`,
  tail: "order by t.schemaname, t.relname",
});

export const pgStatAllIndexes = relationProbe({
  name: "pg_stat_all_indexes",
  scope: "database",
  intervalSeconds: 300,
  retentionDays: 7,
  relations: { i: "pg_stat_all_indexes", io: "pg_statio_all_indexes" },
  main: "i",
  columns: [
    column("relid", "bigint", "i.relid::int8", ["i.relid"]),
    column("indexrelid", "bigint", "i.indexrelid::int8", ["i.indexrelid"]),
    ...columns("text", "schemaname", "relname", "indexrelname"),
    column("idx_scan", "bigint"),
    column("last_idx_scan", "timestamptz"),
    ...columns("bigint", "idx_tup_read", "idx_tup_fetch"),
    statio("idx_blks_read"),
    statio("idx_blks_hit"),
  ],
  from: (has) =>
    has("io")
      ? "pg_catalog.pg_stat_all_indexes i left join pg_catalog.pg_statio_all_indexes io on io.indexrelid = i.indexrelid"
      : "pg_catalog.pg_stat_all_indexes i",
  tail: "order by i.schemaname, i.relname, i.indexrelname",
});

export const pgStatioAllSequences = relationProbe({
  name: "pg_statio_all_sequences",
  scope: "database",
  intervalSeconds: 300,
  retentionDays: 7,
  relations: { s: "pg_statio_all_sequences" },
  main: "s",
  columns: [
    column("relid", "bigint", "s.relid::int8", ["s.relid"]),
    ...columns("text", "schemaname", "relname"),
    ...columns("bigint", "blks_read", "blks_hit"),
  ],
  from: () => "pg_catalog.pg_statio_all_sequences s",
  tail: "order by s.schemaname, s.relname",
});

export const pgStatUserFunctions = relationProbe({
  name: "pg_stat_user_functions",
  scope: "database",
  intervalSeconds: 300,
  retentionDays: 7,
  relations: { f: "pg_stat_user_functions" },
  main: "f",
  columns: [
    column("funcid", "bigint", "f.funcid::int8", ["f.funcid"]),
    ...columns("text", "schemaname", "funcname"),
    column("calls", "bigint"),
    ...columns("double precision", "total_time", "self_time"),
  ],
  from: () => "pg_catalog.pg_stat_user_functions f",
  tail: "order by f.schemaname, f.funcname",
});

const STATEMENTS_LIMIT = 1000;

function statementsQuery(schema: string): RelationQuery {
  const relation = `"${schema.replaceAll('"', '""')}".pg_stat_statements`;
  /** Renamed in pg_stat_statements 1.11 (PostgreSQL 17): shared_blk_* were blk_*. */
  const renamed = (name: string, old: string | null) => (has: (key: string) => boolean) =>
    has(`s.${name}`) ? `s.${name}` : old !== null && has(`s.${old}`) ? `s.${old}` : null;
  return {
    relations: { s: relation },
    main: "s",
    columns: [
      column("userid", "bigint", "s.userid::int8", ["s.userid"]),
      column("dbid", "bigint", "s.dbid::int8", ["s.dbid"]),
      column("queryid", "bigint"),
      column("toplevel", "boolean", (has) => (has("s.toplevel") ? "s.toplevel" : "true")),
      column("query", "text"),
      column("calls", "bigint"),
      ...columns("double precision", "total_exec_time", "mean_exec_time", "min_exec_time", "max_exec_time"),
      column("stddev_exec_time", "double precision"),
      column("rows", "bigint"),
      ...columns(
        "bigint",
        "shared_blks_hit",
        "shared_blks_read",
        "shared_blks_dirtied",
        "shared_blks_written",
      ),
      ...columns("bigint", "local_blks_hit", "local_blks_read", "local_blks_dirtied", "local_blks_written"),
      ...columns("bigint", "temp_blks_read", "temp_blks_written"),
      column("shared_blk_read_time", "double precision", renamed("shared_blk_read_time", "blk_read_time")),
      column("shared_blk_write_time", "double precision", renamed("shared_blk_write_time", "blk_write_time")),
      column("local_blk_read_time", "double precision", renamed("local_blk_read_time", null)),
      column("local_blk_write_time", "double precision", renamed("local_blk_write_time", null)),
    ],
    from: () => `${relation} s`,
    // The view is server-wide: each database stores its own statements only.
    tail: `where s.queryid is not null
  and s.dbid = (select oid from pg_catalog.pg_database where datname = current_database())
  order by s.total_exec_time desc limit ${STATEMENTS_LIMIT}`,
  };
}

/** Top statements of this database by total time, when the extension is installed and loaded. */
export const pgStatStatements: ProbeDefinition = {
  name: "pg_stat_statements",
  scope: "database",
  intervalSeconds: 300,
  retentionDays: 7,
  snapshot: false,
  columns: statementsQuery("public").columns.map(({ name, type }) => ({ name, type })),
  async collect(context) {
    const [extension] = await context.query(
      `select n.nspname::text as schema from pg_catalog.pg_extension e
       join pg_catalog.pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_stat_statements'`,
    );
    if (!extension) {
      return null;
    }
    const rows = await collectRelation(statementsQuery(String(extension.schema)), context).catch(
      // Installed but not in shared_preload_libraries: the view refuses to be read.
      (): null => null,
    );
    return rows && dropDuplicateStatements(rows);
  },
};

/** (queryid, userid, toplevel) identifies a statement; a repeated one is kept once. */
function dropDuplicateStatements(rows: ProbeRow[]): ProbeRow[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = `${row.queryid}:${row.userid}:${row.toplevel}`;
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
}

export const spockExceptionLog = relationProbe({
  name: "spock_exception_log",
  scope: "database",
  intervalSeconds: 60,
  retentionDays: 7,
  relations: { e: "spock.exception_log" },
  main: "e",
  columns: [
    column("remote_origin", "bigint", "e.remote_origin::int8", ["e.remote_origin"]),
    column("remote_commit_ts", "timestamptz"),
    column("command_counter", "integer"),
    column("retry_errored_at", "timestamptz"),
    column("remote_xid", "bigint", "e.remote_xid::text::int8", ["e.remote_xid"]),
    column("local_origin", "bigint", "e.local_origin::int8", ["e.local_origin"]),
    column("local_commit_ts", "timestamptz"),
    ...columns("text", "table_schema", "table_name", "operation"),
    ...columns("jsonb", "local_tup", "remote_old_tup", "remote_new_tup"),
    ...columns("text", "ddl_statement", "ddl_user", "error_message"),
  ],
  from: () => "spock.exception_log e",
  // A rolling window: the same rows come back on the next runs.
  tail: (has) =>
    has("e.retry_errored_at") ? "where e.retry_errored_at > now() - interval '15 minutes'" : "where false",
});

export const spockResolutions = relationProbe({
  name: "spock_resolutions",
  scope: "database",
  intervalSeconds: 60,
  retentionDays: 7,
  relations: { r: "spock.resolutions" },
  main: "r",
  columns: [
    column("id", "bigint"),
    ...columns("text", "node_name"),
    column("log_time", "timestamptz"),
    ...columns("text", "relname", "idxname", "conflict_type", "conflict_resolution"),
    column("local_origin", "integer"),
    column("local_tuple", "text"),
    column("local_xid", "text"),
    column("local_timestamp", "timestamptz"),
    column("remote_origin", "integer"),
    column("remote_tuple", "text"),
    column("remote_xid", "text"),
    column("remote_timestamp", "timestamptz"),
    column("remote_lsn", "text"),
  ],
  from: () => "spock.resolutions r",
  tail: (has) => (has("r.log_time") ? "where r.log_time > now() - interval '15 minutes'" : "where false"),
});
