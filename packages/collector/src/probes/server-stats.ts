import {
  catalogueColumnTypes,
  collectRelation,
  column,
  columns,
  type RelationQuery,
  relationProbe,
} from "./relation-probe.js";
import type { ProbeCollection } from "./types.js";

// Server-wide statistics probes (PostgreSQL 14 to 18). Each reads which views and columns exist on the
// monitored server and stores NULL for what its version lacks.

export const pgStatActivity = relationProbe({
  name: "pg_stat_activity",
  relations: { a: "pg_stat_activity" },
  main: "a",
  columns: [
    column("datid", "a.datid::int8", ["a.datid"]),
    column("datname"),
    column("pid"),
    column("leader_pid"),
    column("usesysid", "a.usesysid::int8", ["a.usesysid"]),
    ...columns("usename", "application_name"),
    column("client_addr"),
    column("client_hostname"),
    column("client_port"),
    ...columns("backend_start", "xact_start", "query_start", "state_change"),
    ...columns(
      "wait_event_type",
      "wait_event",
      "state",
      "backend_xid",
      "backend_xmin",
      "query",
      "backend_type",
    ),
  ],
  from: () => "pg_catalog.pg_stat_activity a",
  tail: "where a.pid <> pg_backend_pid() order by a.pid",
});

const replicationColumns = [
  column("role", "role", []),
  column("pid", "pid", []),
  ...[
    "usesysid",
    "usename",
    "application_name",
    "client_addr",
    "client_hostname",
    "client_port",
    "backend_start",
    "backend_xmin",
    "state",
    "sent_lsn",
    "write_lsn",
    "flush_lsn",
    "replay_lsn",
    "write_lag",
    "flush_lag",
    "replay_lag",
    "sync_priority",
    "sync_state",
    "reply_time",
    "receiver_pid",
    "receiver_status",
    "receive_start_lsn",
    "receive_start_tli",
    "written_lsn",
    "receiver_flushed_lsn",
    "received_tli",
    "last_msg_send_time",
    "last_msg_receipt_time",
    "latest_end_lsn",
    "latest_end_time",
    "receiver_slot_name",
    "sender_host",
    "sender_port",
    "conninfo",
  ].map((name) => column(name, name, [])),
];

/**
 * Senders (role `primary`) when not in recovery, the WAL receiver (role `standby`) when there is one,
 * and a standby without a receiver as a sentinel row (pid 0, receiver_status NULL).
 */
export const pgStatReplication = relationProbe({
  name: "pg_stat_replication",
  relations: { r: "pg_stat_replication", w: "pg_stat_wal_receiver" },
  main: "r",
  columns: replicationColumns,
  from: () => `(
  select 'primary' as role, r.pid, r.usesysid::int8 as usesysid, r.usename::text as usename, r.application_name,
    r.client_addr, r.client_hostname, r.client_port, r.backend_start, r.backend_xmin::text as backend_xmin, r.state,
    r.sent_lsn::text as sent_lsn, r.write_lsn::text as write_lsn, r.flush_lsn::text as flush_lsn,
    r.replay_lsn::text as replay_lsn, r.write_lag, r.flush_lag, r.replay_lag, r.sync_priority, r.sync_state,
    r.reply_time, null::int as receiver_pid, null::text as receiver_status, null::text as receive_start_lsn,
    null::int as receive_start_tli, null::text as written_lsn, null::text as receiver_flushed_lsn,
    null::int as received_tli, null::timestamptz as last_msg_send_time, null::timestamptz as last_msg_receipt_time,
    null::text as latest_end_lsn, null::timestamptz as latest_end_time, null::text as receiver_slot_name,
    null::text as sender_host, null::int as sender_port, null::text as conninfo
  from pg_catalog.pg_stat_replication r where not pg_is_in_recovery()
  union all
  select 'standby', w.pid, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
    w.pid, w.status, w.receive_start_lsn::text, w.receive_start_tli, w.written_lsn::text,
    w.flushed_lsn::text, w.received_tli, w.last_msg_send_time, w.last_msg_receipt_time, w.latest_end_lsn::text,
    w.latest_end_time, w.slot_name, w.sender_host, w.sender_port, w.conninfo
  from pg_catalog.pg_stat_wal_receiver w where w.pid is not null
) replication`,
  tail: "order by role, pid",
  async finish(rows, context) {
    if (rows.length > 0) {
      return rows;
    }
    const [state] = await context.query("select pg_is_in_recovery() as in_recovery");
    return state?.in_recovery ? [{ role: "standby", pid: 0 }] : [];
  },
});

export const pgReplicationSlots = relationProbe({
  name: "pg_replication_slots",
  relations: { s: "pg_replication_slots", t: "pg_stat_replication_slots" },
  main: "s",
  columns: [
    column("slot_name"),
    column("slot_type"),
    column("active"),
    column("wal_status"),
    column("safe_wal_size"),
    // On a standby pg_current_wal_lsn() fails: measure against the last received WAL there.
    column(
      "retained_bytes",
      `pg_wal_lsn_diff(case when pg_is_in_recovery() then pg_last_wal_receive_lsn() else pg_current_wal_lsn() end,
        s.restart_lsn)`,
      [],
    ),
    ...[
      "spill_txns",
      "spill_count",
      "spill_bytes",
      "stream_txns",
      "stream_count",
      "stream_bytes",
      "total_txns",
    ].map((name) => column(name, `t.${name}`, [`t.${name}`])),
    column("total_count", "t.total_count", ["t.total_count"]),
    column("total_bytes", "t.total_bytes", ["t.total_bytes"]),
    column("stats_reset", "t.stats_reset", ["t.stats_reset"]),
  ],
  from: (has) =>
    has("t")
      ? "pg_catalog.pg_replication_slots s left join pg_catalog.pg_stat_replication_slots t on t.slot_name = s.slot_name"
      : "pg_catalog.pg_replication_slots s",
  tail: "where s.restart_lsn is not null order by s.slot_name",
});

export const pgStatRecoveryPrefetch = relationProbe({
  name: "pg_stat_recovery_prefetch",
  relations: { p: "pg_stat_recovery_prefetch" },
  main: "p",
  columns: [
    column("stats_reset"),
    ...columns("prefetch", "hit", "skip_init", "skip_new", "skip_fpw", "skip_rep"),
    ...columns("wal_distance", "block_distance", "io_depth"),
  ],
  from: () => "pg_catalog.pg_stat_recovery_prefetch p",
});

export const pgStatSubscription = relationProbe({
  name: "pg_stat_subscription",
  relations: { s: "pg_stat_subscription", t: "pg_stat_subscription_stats" },
  main: "s",
  columns: [
    column("subid", "s.subid::int8", ["s.subid"]),
    column("subname"),
    column("worker_type"),
    column("pid"),
    column("leader_pid"),
    column("relid", "s.relid::int8", ["s.relid"]),
    column("received_lsn"),
    column("last_msg_send_time"),
    column("last_msg_receipt_time"),
    column("latest_end_lsn"),
    column("latest_end_time"),
    column("apply_error_count", "t.apply_error_count", ["t.apply_error_count"]),
    column("sync_error_count", "t.sync_error_count", ["t.sync_error_count"]),
    column("stats_reset", "t.stats_reset", ["t.stats_reset"]),
  ],
  from: (has) =>
    has("t")
      ? "pg_catalog.pg_stat_subscription s left join pg_catalog.pg_stat_subscription_stats t on t.subid = s.subid"
      : "pg_catalog.pg_stat_subscription s",
  tail: "order by s.subid, s.pid",
});

export const pgStatConnectionSecurity = relationProbe({
  name: "pg_stat_connection_security",
  relations: { s: "pg_stat_ssl", g: "pg_stat_gssapi" },
  main: "s",
  columns: [
    column("pid"),
    column("ssl"),
    column("ssl_version", "s.version", ["s.version"]),
    column("cipher"),
    column("bits"),
    column("client_dn"),
    column("client_serial"),
    column("issuer_dn"),
    column("gss_authenticated", "g.gss_authenticated", ["g.gss_authenticated"]),
    column("principal", "g.principal", ["g.principal"]),
    column("gss_encrypted", "g.encrypted", ["g.encrypted"]),
    column("credentials_delegated", "g.credentials_delegated", ["g.credentials_delegated"]),
  ],
  from: (has) =>
    has("g")
      ? "pg_catalog.pg_stat_ssl s left join pg_catalog.pg_stat_gssapi g on g.pid = s.pid"
      : "pg_catalog.pg_stat_ssl s",
  tail: "order by s.pid",
});

const ioCounters = ["reads", "writes", "writebacks", "extends", "hits", "evictions", "reuses", "fsyncs"];
const ioTimes = ["read_time", "write_time", "writeback_time", "extend_time", "fsync_time"];

const statIo: RelationQuery = {
  relations: { i: "pg_stat_io" },
  main: "i",
  columns: [
    ...columns("backend_type", "object", "context"),
    ...ioCounters.map((name) => column(name)),
    ...ioTimes.map((name) => column(name)),
    column("op_bytes"),
    column("stats_reset"),
    // SLRU-only counters.
    ...["blks_zeroed", "blks_exists", "flushes", "truncates"].map((name) => column(name, () => null)),
  ],
  from: () => "pg_catalog.pg_stat_io i",
  tail: "order by i.backend_type, i.object, i.context",
};

/** Where SLRU statistics go among pg_stat_io's columns. */
const slruSources: Readonly<Record<string, string>> = {
  backend_type: "'slru'",
  object: "s.name",
  context: "'normal'",
  reads: "s.blks_read",
  writes: "s.blks_written",
  hits: "s.blks_hit",
  stats_reset: "s.stats_reset",
  blks_zeroed: "s.blks_zeroed",
  blks_exists: "s.blks_exists",
  flushes: "s.flushes",
  truncates: "s.truncates",
};

/** SLRU caches as pg_stat_io rows: backend_type 'slru', object the cache, context 'normal'. */
const statSlru: RelationQuery = {
  relations: { s: "pg_stat_slru" },
  main: "s",
  columns: statIo.columns.map((col) => column(col.name, () => slruSources[col.name] ?? null)),
  from: () => "pg_catalog.pg_stat_slru s",
  tail: "order by s.name",
};

const statIoTypes = catalogueColumnTypes("pg_stat_io", statIo);

export const pgStatIo: ProbeCollection = {
  name: "pg_stat_io",
  async collect(context) {
    const [io, slru] = await Promise.all([
      collectRelation(statIo, statIoTypes, context),
      collectRelation(statSlru, statIoTypes, context),
    ]);
    return [...io, ...slru];
  },
};

/** PostgreSQL 17 split pg_stat_checkpointer off pg_stat_bgwriter; older servers map the old names. */
function checkpointer(newName: string, oldName: string | null) {
  return (has: (key: string) => boolean) =>
    has("c") ? `c.${newName}` : oldName !== null && has(`b.${oldName}`) ? `b.${oldName}` : null;
}

export const pgStatCheckpointer = relationProbe({
  name: "pg_stat_checkpointer",
  relations: { c: "pg_stat_checkpointer", b: "pg_stat_bgwriter" },
  main: "b",
  columns: [
    column("num_timed", checkpointer("num_timed", "checkpoints_timed")),
    column("num_requested", checkpointer("num_requested", "checkpoints_req")),
    column("restartpoints_timed", checkpointer("restartpoints_timed", null)),
    column("restartpoints_req", checkpointer("restartpoints_req", null)),
    column("restartpoints_done", checkpointer("restartpoints_done", null)),
    column("write_time", checkpointer("write_time", "checkpoint_write_time")),
    column("sync_time", checkpointer("sync_time", "checkpoint_sync_time")),
    column("buffers_written", checkpointer("buffers_written", "buffers_checkpoint")),
    column("stats_reset", checkpointer("stats_reset", "stats_reset")),
    column("buffers_clean", "b.buffers_clean", ["b.buffers_clean"]),
    column("maxwritten_clean", "b.maxwritten_clean", ["b.maxwritten_clean"]),
    column("buffers_alloc", "b.buffers_alloc", ["b.buffers_alloc"]),
    column("bgwriter_stats_reset", "b.stats_reset", ["b.stats_reset"]),
  ],
  from: (has) =>
    has("c")
      ? "pg_catalog.pg_stat_checkpointer c cross join pg_catalog.pg_stat_bgwriter b"
      : "pg_catalog.pg_stat_bgwriter b",
});

function walColumn(name: string) {
  return column(name, `w.${name}`, [`w.${name}`]);
}

/** pg_stat_wal with the archiver's counters (there is no separate archiver probe). */
export const pgStatWal = relationProbe({
  name: "pg_stat_wal",
  relations: { w: "pg_stat_wal", a: "pg_stat_archiver" },
  main: "a",
  columns: [
    walColumn("wal_records"),
    walColumn("wal_fpi"),
    walColumn("wal_bytes"),
    walColumn("wal_buffers_full"),
    walColumn("wal_write"),
    walColumn("wal_sync"),
    walColumn("wal_write_time"),
    walColumn("wal_sync_time"),
    walColumn("stats_reset"),
    column("archived_count", "a.archived_count", ["a.archived_count"]),
    column("last_archived_wal", "a.last_archived_wal", ["a.last_archived_wal"]),
    column("last_archived_time", "a.last_archived_time", ["a.last_archived_time"]),
    column("failed_count", "a.failed_count", ["a.failed_count"]),
    column("last_failed_wal", "a.last_failed_wal", ["a.last_failed_wal"]),
    column("last_failed_time", "a.last_failed_time", ["a.last_failed_time"]),
    column("archiver_stats_reset", "a.stats_reset", ["a.stats_reset"]),
  ],
  from: (has) =>
    has("w")
      ? "pg_catalog.pg_stat_wal w cross join pg_catalog.pg_stat_archiver a"
      : "pg_catalog.pg_stat_archiver a",
});

/** Readable only with the privilege (superusers by default): otherwise nothing, not an error. */
function readableGate(relation: string): string {
  return `where has_table_privilege('pg_catalog.${relation}', 'select')`;
}

export const pgHbaFileRules = relationProbe({
  name: "pg_hba_file_rules",
  relations: { h: "pg_hba_file_rules" },
  main: "h",
  columns: [
    column("rule_number", (has) => (has("h.rule_number") ? "h.rule_number" : "h.line_number")),
    column("file_name"),
    column("line_number"),
    column("type"),
    column("database"),
    column("user_name"),
    column("address"),
    column("netmask"),
    column("auth_method"),
    column("options"),
    column("error"),
  ],
  from: () => "pg_catalog.pg_hba_file_rules h",
  tail: (has) =>
    `${readableGate("pg_hba_file_rules")} order by ${has("h.rule_number") ? "h.rule_number" : "h.line_number"}`,
});

export const pgIdentFileMappings = relationProbe({
  name: "pg_ident_file_mappings",
  relations: { m: "pg_ident_file_mappings" },
  main: "m",
  columns: [
    column("map_number", (has) => (has("m.map_number") ? "m.map_number" : "m.line_number")),
    column("file_name"),
    column("line_number"),
    column("map_name"),
    column("sys_name"),
    column("pg_username"),
    column("error"),
  ],
  from: () => "pg_catalog.pg_ident_file_mappings m",
  tail: `${readableGate("pg_ident_file_mappings")} order by m.line_number`,
});
