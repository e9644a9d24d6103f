import { ensureChangedRowsTables, type Sql } from "@dbmon/datastore";
import { findProbeSpec } from "@dbmon/monitoring";

/**
 * Tables of probes that are collected by another branch's probes, created here as the collector
 * creates them (connection_id, [database_name,] collected_at, then the probe's columns: those the
 * rules read with the types the tests write, then the catalogue's others). Changed-rows probes get the
 * collector's layout (rows and runs tables, the view named after the probe), each with a default
 * partition.
 */
const tables: Record<string, { database: boolean; columns: string }> = {
  pg_settings: { database: false, columns: "name text, setting text" },
  pg_stat_activity: {
    database: false,
    columns:
      "datname text, pid integer, usename text, application_name text, backend_start timestamptz, xact_start timestamptz, " +
      "query_start timestamptz, state_change timestamptz, wait_event_type text, wait_event text, state text, query text, backend_type text",
  },
  pg_stat_replication: {
    database: false,
    columns: "role text, pid integer, sent_lsn text, replay_lsn text, receiver_status text",
  },
  pg_replication_slots: {
    database: false,
    columns: "slot_name text, slot_type text, active boolean, retained_bytes numeric",
  },
  pg_node_role: { database: false, columns: "subscription_count integer, active_subscription_count integer" },
  pg_sys_disk_info: {
    database: false,
    columns: "mount_point text, total_space bigint, used_space bigint, free_space bigint",
  },
  pg_sys_cpu_usage_info: {
    database: false,
    columns: "processor_time_percent double precision, idle_mode_percent double precision",
  },
  pg_sys_cpu_info: { database: false, columns: "logical_processor integer, no_of_cores integer" },
  pg_sys_memory_info: {
    database: false,
    columns: "total_memory bigint, used_memory bigint, free_memory bigint",
  },
  pg_sys_load_avg_info: { database: false, columns: "load_avg_fifteen_minutes double precision" },
  pg_database: { database: false, columns: "datname text, datallowconn boolean, age_datfrozenxid integer" },
  pg_stat_database: {
    database: true,
    columns:
      "datname text, blks_read double precision, blks_hit double precision, temp_files double precision, deadlocks double precision",
  },
  pg_stat_checkpointer: {
    database: false,
    columns: "num_timed double precision, num_requested double precision",
  },
  pg_stat_wal: { database: false, columns: "archived_count double precision, failed_count double precision" },
  pg_stat_all_tables: {
    database: true,
    columns:
      "schemaname text, relname text, n_live_tup double precision, n_dead_tup double precision, last_vacuum timestamptz, last_autovacuum timestamptz, reltuples double precision",
  },
  pg_stat_statements: {
    database: true,
    columns:
      "queryid text, userid bigint, toplevel boolean, calls double precision, mean_exec_time double precision",
  },
  spock_exception_log: { database: true, columns: "error_message text" },
  spock_resolutions: { database: true, columns: "conflict_type text" },
};

/**
 * The columns a table gets: the probe's catalogue columns besides those listed (the alerter reads a
 * server-wide probe's rows by its catalogue columns, as the collector creates them).
 */
function columnsOf(name: string, listed: string): string {
  const declared = new Set(listed.split(",").map((column) => column.trim().split(" ")[0]));
  const catalogue = (findProbeSpec(name)?.columns ?? [])
    .filter((column) => !declared.has(column.name))
    .map((column) => `"${column.name}" ${column.type}`);
  return [listed, ...catalogue].join(", ");
}

export async function createMetricTables(sql: Sql): Promise<void> {
  await sql`create schema if not exists metrics`;
  for (const [name, table] of Object.entries(tables)) {
    const changedRows = findProbeSpec(name)?.changedRows;
    if (changedRows) {
      const columns = table.columns.split(",").map((definition) => definition.trim());
      await sql.begin(async (tx) => {
        await ensureChangedRowsTables(tx, {
          schema: "metrics",
          probe: name,
          columnDefinitions: [
            "connection_id integer not null references public.connections(id) on delete cascade",
            "database_name text not null",
            "collected_at timestamptz not null",
            ...columns,
          ],
          columns: columns.map((definition) => definition.split(" ")[0] as string),
          key: changedRows.key,
        });
        for (const part of ["rows", "runs"]) {
          await tx.unsafe(`create table if not exists metrics.${name}_${part}_default
            partition of metrics.${name}_${part} default`);
        }
      });
      continue;
    }
    await sql.unsafe(
      `create table if not exists metrics.${name} (connection_id integer not null references public.connections(id) on delete cascade,
        ${table.database ? "database_name text not null," : ""} collected_at timestamptz not null, ${columnsOf(name, table.columns)})`,
    );
  }
}
