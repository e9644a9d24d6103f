import {
  catalogueColumnTypes,
  collectRelation,
  column,
  columns,
  type RelationQuery,
  relationProbe,
} from "./relation-probe.js";
import type { ProbeCollection, ProbeRow } from "./types.js";

// Per-database statistics probes, run in every connectable database (PostgreSQL 14 to 18).

export const pgStatDatabase = relationProbe({
  name: "pg_stat_database",
  relations: { d: "pg_stat_database" },
  main: "d",
  columns: [
    column("datid", "d.datid::int8", ["d.datid"]),
    column("datname"),
    column("numbackends"),
    ...columns(
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
    column("checksum_last_failure"),
    ...columns("blk_read_time", "blk_write_time", "session_time", "active_time"),
    column("idle_in_transaction_time"),
    ...columns("sessions", "sessions_abandoned", "sessions_fatal", "sessions_killed"),
    column("stats_reset"),
  ],
  from: () => "pg_catalog.pg_stat_database d",
  tail: "where d.datname = current_database()",
});

export const pgStatDatabaseConflicts = relationProbe({
  name: "pg_stat_database_conflicts",
  relations: { d: "pg_stat_database_conflicts" },
  main: "d",
  columns: [
    column("datid", "d.datid::int8", ["d.datid"]),
    column("datname"),
    ...columns(
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
  return column(name, `io.${name}`, [`io.${name}`]);
}

export const pgStatAllTables = relationProbe({
  name: "pg_stat_all_tables",
  relations: { t: "pg_stat_all_tables", io: "pg_statio_all_tables" },
  main: "t",
  columns: [
    ...columns("schemaname", "relname"),
    ...columns("seq_scan", "seq_tup_read", "idx_scan", "idx_tup_fetch"),
    ...columns("n_tup_ins", "n_tup_upd", "n_tup_del", "n_tup_hot_upd", "n_live_tup", "n_dead_tup"),
    column("n_mod_since_analyze"),
    ...columns("last_vacuum", "last_autovacuum", "last_analyze", "last_autoanalyze"),
    ...columns("vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count"),
    ...["heap", "idx", "toast", "tidx"].flatMap((kind) => [
      statio(`${kind}_blks_read`),
      statio(`${kind}_blks_hit`),
    ]),
    // Autovacuum's own row estimate (-1 before the first vacuum or analyze): its trigger is computed
    // from it, not from n_live_tup, which is 0 in a new database's catalogs until they are analyzed.
    column("reltuples", "c.reltuples", []),
  ],
  from: (has) =>
    `${
      has("io")
        ? "pg_catalog.pg_stat_all_tables t left join pg_catalog.pg_statio_all_tables io on io.relid = t.relid"
        : "pg_catalog.pg_stat_all_tables t"
    } left join pg_catalog.pg_class c on c.oid = t.relid`,
  schema: "t.schemaname",
  tail: "order by t.schemaname, t.relname",
});

export const pgStatAllIndexes = relationProbe({
  name: "pg_stat_all_indexes",
  relations: { i: "pg_stat_all_indexes", io: "pg_statio_all_indexes" },
  main: "i",
  columns: [
    column("relid", "i.relid::int8", ["i.relid"]),
    column("indexrelid", "i.indexrelid::int8", ["i.indexrelid"]),
    ...columns("schemaname", "relname", "indexrelname"),
    column("idx_scan"),
    column("last_idx_scan"),
    ...columns("idx_tup_read", "idx_tup_fetch"),
    statio("idx_blks_read"),
    statio("idx_blks_hit"),
  ],
  from: (has) =>
    has("io")
      ? "pg_catalog.pg_stat_all_indexes i left join pg_catalog.pg_statio_all_indexes io on io.indexrelid = i.indexrelid"
      : "pg_catalog.pg_stat_all_indexes i",
  schema: "i.schemaname",
  tail: "order by i.schemaname, i.relname, i.indexrelname",
});

export const pgStatioAllSequences = relationProbe({
  name: "pg_statio_all_sequences",
  relations: { s: "pg_statio_all_sequences" },
  main: "s",
  columns: [
    column("relid", "s.relid::int8", ["s.relid"]),
    ...columns("schemaname", "relname"),
    ...columns("blks_read", "blks_hit"),
  ],
  from: () => "pg_catalog.pg_statio_all_sequences s",
  tail: "order by s.schemaname, s.relname",
});

export const pgStatUserFunctions = relationProbe({
  name: "pg_stat_user_functions",
  relations: { f: "pg_stat_user_functions" },
  main: "f",
  columns: [
    column("funcid", "f.funcid::int8", ["f.funcid"]),
    ...columns("schemaname", "funcname"),
    column("calls"),
    ...columns("total_time", "self_time"),
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
      column("userid", "s.userid::int8", ["s.userid"]),
      column("dbid", "s.dbid::int8", ["s.dbid"]),
      column("queryid"),
      column("toplevel", (has) => (has("s.toplevel") ? "s.toplevel" : "true")),
      column("query"),
      column("calls"),
      ...columns("total_exec_time", "mean_exec_time", "min_exec_time", "max_exec_time"),
      column("stddev_exec_time"),
      column("rows"),
      ...columns("shared_blks_hit", "shared_blks_read", "shared_blks_dirtied", "shared_blks_written"),
      ...columns("local_blks_hit", "local_blks_read", "local_blks_dirtied", "local_blks_written"),
      ...columns("temp_blks_read", "temp_blks_written"),
      column("shared_blk_read_time", renamed("shared_blk_read_time", "blk_read_time")),
      column("shared_blk_write_time", renamed("shared_blk_write_time", "blk_write_time")),
      column("local_blk_read_time", renamed("local_blk_read_time", null)),
      column("local_blk_write_time", renamed("local_blk_write_time", null)),
    ],
    from: () => `${relation} s`,
    // The view is server-wide: each database stores its own statements only.
    tail: `where s.queryid is not null
  and s.dbid = (select oid from pg_catalog.pg_database where datname = current_database())
  order by s.total_exec_time desc limit ${STATEMENTS_LIMIT}`,
  };
}

/** Top statements of this database by total time, when the extension is installed and loaded. */
const statementTypes = catalogueColumnTypes("pg_stat_statements", statementsQuery("public"));

export const pgStatStatements: ProbeCollection = {
  name: "pg_stat_statements",
  async collect(context) {
    const [extension] = await context.query(
      `select n.nspname::text as schema from pg_catalog.pg_extension e
       join pg_catalog.pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_stat_statements'`,
    );
    if (!extension) {
      return null;
    }
    const rows = await collectRelation(
      statementsQuery(String(extension.schema)),
      statementTypes,
      context,
    ).catch(
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
  relations: { e: "spock.exception_log" },
  main: "e",
  columns: [
    column("remote_origin", "e.remote_origin::int8", ["e.remote_origin"]),
    column("remote_commit_ts"),
    column("command_counter"),
    column("retry_errored_at"),
    column("remote_xid", "e.remote_xid::text::int8", ["e.remote_xid"]),
    column("local_origin", "e.local_origin::int8", ["e.local_origin"]),
    column("local_commit_ts"),
    ...columns("table_schema", "table_name", "operation"),
    ...columns("local_tup", "remote_old_tup", "remote_new_tup"),
    ...columns("ddl_statement", "ddl_user", "error_message"),
  ],
  from: () => "spock.exception_log e",
  // A rolling window: the same rows come back on the next runs.
  tail: (has) =>
    has("e.retry_errored_at") ? "where e.retry_errored_at > now() - interval '15 minutes'" : "where false",
});

export const spockResolutions = relationProbe({
  name: "spock_resolutions",
  relations: { r: "spock.resolutions" },
  main: "r",
  columns: [
    column("id"),
    ...columns("node_name"),
    column("log_time"),
    ...columns("relname", "idxname", "conflict_type", "conflict_resolution"),
    column("local_origin"),
    column("local_tuple"),
    column("local_xid"),
    column("local_timestamp"),
    column("remote_origin"),
    column("remote_tuple"),
    column("remote_xid"),
    column("remote_timestamp"),
    column("remote_lsn"),
  ],
  from: () => "spock.resolutions r",
  tail: (has) => (has("r.log_time") ? "where r.log_time > now() - interval '15 minutes'" : "where false"),
});
