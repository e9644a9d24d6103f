import { timed } from "./harness.js";
// The alerter's anomaly baselines calculated from a week of collected history (every rule metric,
// per series, hour of day and day of week), for N connections with each probe at its default
// interval; next to one evaluation pass (every rule's current value, anomalies scored). Then the
// hourly incremental update for a fleet (BENCH_BASELINE_FLEET connections, default 1,000) with a
// week of hourly partials in place.

import { rm } from "node:fs/promises";
import { createLogger, loadConfig, startService } from "../apps/api/src/index.js";
import type { startAlerter } from "../packages/alerter/src/index.js";
import { ensureMetricsTables, PartitionManager, probeRegistry } from "../packages/collector/src/index.js";
import type { Sql } from "../packages/datastore/src/index.js";
import { benchAlerter, copyPartialsBack, stepTimedAlerter } from "./baseline-history.js";
import { benchConfig } from "./datastore.js";
import { datastoreCpuBetween, datastoreCpuSeconds } from "./proc.js";

const CONNECTIONS = (process.env.BENCH_BASELINE_CONNECTIONS ?? "1,10").split(",").map(Number);
const FLEET = Number(process.env.BENCH_BASELINE_FLEET ?? 1000);
const HOUR_MS = 3600_000;
const DAYS = 7;
const DATABASES = 3;
const TABLES = 100;
const STATEMENTS = 50;
const SESSIONS = 20;

/**
 * A week of every table the rules read, for the connections `ids`: one row per session, database,
 * table or statement at each collection, at the probe's default interval.
 */
async function generateHistory(sql: Sql, ids: number[], now: Date, hours = DAYS * 24): Promise<void> {
  const interval = (name: string) =>
    probeRegistry.find((probe) => probe.name === name)?.intervalSeconds ?? 60;
  const times = (name: string) =>
    `generate_series($2::timestamptz - interval '${hours} hours', $2::timestamptz, make_interval(secs => ${interval(name)})) t`;
  const steps = (name: string) => `(extract(epoch from t) / ${interval(name)})::bigint`;
  const statements = [
    `insert into metrics.pg_settings (connection_id, collected_at, name, setting)
     select c, $2::timestamptz - interval '${hours + 24} hours', s.name, s.setting from unnest($1::int[]) c,
       (values ('max_connections', '200'), ('autovacuum_freeze_max_age', '200000000'), ('autovacuum_vacuum_threshold', '50'),
         ('autovacuum_vacuum_scale_factor', '0.2'), ('TimeZone', 'Europe/Paris')) s(name, setting)`,
    `insert into metrics.pg_stat_activity (connection_id, collected_at, pid, backend_type, state, query_start, xact_start,
       state_change, wait_event_type)
     select c, t, g, 'client backend', case when g % 4 = 0 then 'active' when g % 7 = 0 then 'idle in transaction' else 'idle' end,
       t - make_interval(secs => g), t - make_interval(secs => g * 2), t - make_interval(secs => g),
       case when g = 3 then 'Lock' end
     from unnest($1::int[]) c, ${times("pg_stat_activity")}, generate_series(1, ${SESSIONS}) g`,
    `insert into metrics.pg_stat_replication (connection_id, collected_at, role, sent_lsn, replay_lsn, receiver_status)
     select c, t, 'primary', '0/A0000000', '0/9F000000', 'streaming' from unnest($1::int[]) c, ${times("pg_stat_replication")}`,
    `insert into metrics.pg_replication_slots (connection_id, collected_at, slot_name, active, retained_bytes)
     select c, t, 'slot', true, 1000000 + random() * 1000 from unnest($1::int[]) c, ${times("pg_replication_slots")}`,
    `insert into metrics.pg_node_role (connection_id, collected_at, subscription_count, active_subscription_count)
     select c, t, 0, 0 from unnest($1::int[]) c, ${times("pg_node_role")}`,
    `insert into metrics.pg_sys_disk_info (connection_id, collected_at, mount_point, total_space, used_space)
     select c, t, '/', 1000000, 400000 + random() * 1000 from unnest($1::int[]) c, ${times("pg_sys_disk_info")}`,
    `insert into metrics.pg_sys_cpu_usage_info (connection_id, collected_at, processor_time_percent)
     select c, t, 20 + random() * 10 from unnest($1::int[]) c, ${times("pg_sys_cpu_usage_info")}`,
    `insert into metrics.pg_sys_memory_info (connection_id, collected_at, total_memory, used_memory)
     select c, t, 1000, 500 + random() * 50 from unnest($1::int[]) c, ${times("pg_sys_memory_info")}`,
    `insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes)
     select c, t, 1 + random() from unnest($1::int[]) c, ${times("pg_sys_load_avg_info")}`,
    `insert into metrics.pg_database (connection_id, collected_at, datname, datallowconn, age_datfrozenxid)
     select c, t, 'db' || d, true, 1000000 + ${steps("pg_database")} % 1000
     from unnest($1::int[]) c, ${times("pg_database")}, generate_series(1, ${DATABASES}) d`,
    `insert into metrics.pg_stat_database (connection_id, database_name, collected_at, blks_hit, blks_read, temp_files, deadlocks)
     select c, 'db' || d, t, ${steps("pg_stat_database")} * 100000, ${steps("pg_stat_database")} * 1000,
       ${steps("pg_stat_database")} / 10, ${steps("pg_stat_database")} / 100
     from unnest($1::int[]) c, ${times("pg_stat_database")}, generate_series(1, ${DATABASES}) d`,
    `insert into metrics.pg_stat_checkpointer (connection_id, collected_at, num_timed, num_requested)
     select c, t, ${steps("pg_stat_checkpointer")}, ${steps("pg_stat_checkpointer")} / 5
     from unnest($1::int[]) c, ${times("pg_stat_checkpointer")}`,
    `insert into metrics.pg_stat_wal (connection_id, collected_at, archived_count, failed_count)
     select c, t, ${steps("pg_stat_wal")}, 0 from unnest($1::int[]) c, ${times("pg_stat_wal")}`,
    `insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname, n_live_tup,
       n_dead_tup, last_autovacuum)
     select c, 'db' || d, t, case when r <= 70 then 'pg_catalog' else 'public' end, 'rel' || r, 1000 + r * 100,
       (${steps("pg_stat_all_tables")} + r) % 500, t - make_interval(hours => r)
     from unnest($1::int[]) c, ${times("pg_stat_all_tables")}, generate_series(1, ${DATABASES}) d, generate_series(1, ${TABLES}) r`,
    `insert into metrics.pg_stat_statements (connection_id, database_name, collected_at, queryid, calls, mean_exec_time)
     select c, 'db' || d, t, q, ${steps("pg_stat_statements")} * q, q * 30
     from unnest($1::int[]) c, ${times("pg_stat_statements")}, generate_series(1, ${DATABASES}) d, generate_series(1, ${STATEMENTS}) q`,
  ];
  for (const statement of statements) {
    // Worst-table metrics learn no baselines: a fleet's hours of table statistics would only cost time.
    if (hours < DAYS * 24 && statement.includes("pg_stat_all_tables")) {
      continue;
    }
    await sql.unsafe(statement, [ids, now.toISOString()]);
  }
  await sql.unsafe("analyze");
}

export async function run(): Promise<void> {
  const config = await benchConfig();
  const service = await startService(
    loadConfig({
      ...config,
      DBMON_MONITOR_SELF: "false",
      DBMON_COLLECTOR: "false",
      DBMON_ALERTER: "false",
    }),
    createLogger("silent"),
  );
  try {
    const { datastore } = service;
    const { sql } = datastore;
    await ensureMetricsTables(sql, probeRegistry);
    const partitions = new PartitionManager(sql, probeRegistry);
    const now = new Date();
    for (let week = 0; week <= Math.ceil(DAYS / 7) + 1; week += 1) {
      await partitions.ensureAround(new Date(now.getTime() - week * 7 * 24 * 3600 * 1000));
    }
    const alerter = benchAlerter(datastore, () => now);
    console.log(
      `\n## Anomaly baselines from ${DAYS} days of history (${DATABASES} databases, ${TABLES} tables each)`,
    );
    console.log(
      "| connections | rows of history | generated s | full recalculation s | baselines | first evaluation pass ms | evaluation pass ms |",
    );
    console.log("|---|---|---|---|---|---|---|");
    let total = 0;
    for (const connections of CONNECTIONS) {
      const ids = (
        await sql<{ id: number }[]>`
          insert into connections (name, host, port, database_name, username, owner_username)
          select 'bench-' || g, '127.0.0.1', 5432, 'postgres', 'postgres', 'admin'
          from generate_series(${total + 1}::int, ${connections}::int) g returning id`
      ).map((row) => row.id);
      total = connections;
      const generation = await timed(() => generateHistory(sql, ids, now));
      const [{ rows } = { rows: 0 }] = await sql.unsafe<{ rows: number }[]>(
        `select sum(n_live_tup)::bigint::int as rows from pg_stat_user_tables where schemaname = 'metrics'`,
      );
      await alerter.calculateBaselines(); // warm the caches once
      const recalculation = await timed(() => alerter.calculateBaselines({ full: true }));
      const [{ count } = { count: 0 }] = await sql<
        { count: number }[]
      >`select count(*)::int as count from metric_baselines`;
      // The first pass also traces back when each table past autovacuum's trigger crossed it (once
      // per database the alerters have not followed); later passes only follow new collections.
      const firstEvaluation = await timed(() => alerter.evaluate());
      const evaluation = await timed(() => alerter.evaluate());
      console.log(
        `| ${connections} | ${rows} | ${(generation / 1000).toFixed(1)} | ${(recalculation / 1000).toFixed(2)} | ${count} | ${firstEvaluation.toFixed(0)} | ${evaluation.toFixed(0)} |`,
      );
    }
    await alerter.stop();
    await fleetUpdate(sql, datastore, total);
  } finally {
    await service.close();
    await rm(config.DBMON_DATA_DIR as string, { recursive: true, force: true });
  }
}

/**
 * The hourly update for a fleet: the last three hours of history of FLEET connections, hourly
 * partials for the week before them (copies of real ones, their means moved a little), then one
 * update at two minutes past the hour, timed. Its statements run one at a time in one datastore
 * session, so its wall time is about its cost in datastore core time (parallel query aside).
 */
async function fleetUpdate(
  sql: Sql,
  datastore: Parameters<typeof startAlerter>[0]["datastore"],
  existing: number,
) {
  const ids = (
    await sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username)
      select 'fleet-' || g, '127.0.0.1', 5432, 'postgres', 'postgres', 'admin'
      from generate_series(1, ${FLEET}::int) g returning id`
  ).map((row) => row.id);
  await sql`delete from connections where name like 'bench-%'`;
  const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  const generation = await timed(() => generateHistory(sql, ids, new Date(hour + 60_000), 3));
  let now = new Date(hour - HOUR_MS + 120_000);
  const alerter = benchAlerter(datastore, () => now);
  await alerter.calculateBaselines({ full: true });
  // A week of partials before the two hours just calculated, copies of the first one.
  await copyPartialsBack(sql, new Date(hour - 3 * HOUR_MS), DAYS * 24 - 2);
  const [{ partials } = { partials: 0 }] = await sql<{ partials: number }[]>`
    select count(*)::int as partials from metric_baseline_hours`;
  now = new Date(hour + 120_000);
  // The update's own alerter, logging each metric's time recomputing partials and merging them.
  const { alerter: measured, steps } = stepTimedAlerter(datastore, () => now);
  const cpu = process.cpuUsage();
  const datastoreBefore = await datastoreCpuSeconds(sql);
  const update = await timed(() => measured.calculateBaselines());
  const { user, system } = process.cpuUsage(cpu);
  const datastoreAfter = await datastoreCpuSeconds(sql);
  const datastoreCpu = datastoreCpuBetween(datastoreBefore, datastoreAfter);
  await measured.stop();
  const [{ count } = { count: 0 }] = await sql<{ count: number }[]>`
    select count(*)::int as count from metric_baselines`;
  await alerter.stop();
  console.log(`\n## Hourly incremental update, ${FLEET} connections (${existing} before removed)`);
  console.log(
    "| connections | partials (a week) | history generated s | update s (partials + merge) | alerter CPU s | datastore CPU s | baselines |",
  );
  console.log("|---|---|---|---|---|---|---|");
  console.log(
    `| ${FLEET} | ${partials} | ${(generation / 1000).toFixed(1)} | ${(update / 1000).toFixed(1)} ` +
      `(${(steps.partialsMs / 1000).toFixed(1)} + ${(steps.mergeMs / 1000).toFixed(1)}) | ` +
      `${((user + system) / 1e6).toFixed(1)} | ${datastoreCpu.toFixed(1)} | ${count} |`,
  );
}
