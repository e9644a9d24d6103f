// The health checks over a fleet of BENCH_HEALTH_CONNECTIONS (100) connections with an hour of
// collected rows at default intervals: the alerter's evaluation pass that stores their results
// (recordHealthChecks), and the fleet view (GET /api/v1/health) that reads them, one request at a
// time and at 50 concurrent clients. Goal: the fleet view answers in < 300 ms.
import {
  ensureMetricsTables,
  findProbe,
  PartitionManager,
  type ProbeDefinition,
} from "../packages/collector/src/index.js";
import type { Sql } from "../packages/datastore/src/index.js";
import { HEALTH_CHECK_PROBES, recordHealthChecks } from "../packages/monitoring/src/index.js";
import { startApiOnly } from "./datastore.js";
import { load, loginAdmin, percentile, report, timed } from "./harness.js";

const CONNECTIONS = Number(process.env.BENCH_HEALTH_CONNECTIONS ?? 100);
const RUNS = 20;

const PROBES = HEALTH_CHECK_PROBES;

/**
 * An hour of rows per connection at the probes' default intervals: 30 sessions each minute, 3
 * databases of 100 tables every 5 minutes, object findings every 15 minutes, a standby and a slot.
 */
async function generate(sql: Sql, now: Date, connections: number): Promise<void> {
  const at = now.toISOString();
  await sql`
    insert into connections (name, host, port, database_name, username, owner_username, is_monitored)
    select 'bench-' || g, '127.0.0.1', 5432, 'postgres', 'postgres', 'admin', true
    from generate_series(1, ${connections}) g`;
  const ids = sql`(select id from connections where name like 'bench-%')`;
  await sql`
    insert into metrics.pg_stat_activity (connection_id, collected_at, datname, pid, usename, application_name,
      backend_type, state, xact_start, state_change, query)
    select c.id, t, 'app', 1000 + s, 'app', 'web', 'client backend',
      case when s % 10 = 0 then 'idle in transaction' when s % 3 = 0 then 'active' else 'idle' end,
      t - make_interval(secs => s), t - make_interval(secs => s), 'select ' || s
    from ${ids} c
    cross join generate_series(${at}::timestamptz - interval '1 hour', ${at}::timestamptz, interval '1 minute') t
    cross join generate_series(1, 30) s`;
  await sql`
    insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname,
      n_live_tup, n_dead_tup, last_autovacuum)
    select c.id, 'db' || d, t, 'public', 't' || r, 100000, (r * 37) % 30000, t - interval '1 hour'
    from ${ids} c
    cross join generate_series(${at}::timestamptz - interval '1 hour', ${at}::timestamptz, interval '5 minutes') t
    cross join generate_series(1, 3) d cross join generate_series(1, 100) r`;
  await sql`
    insert into metrics.pg_stat_database (connection_id, database_name, collected_at, datname, blks_hit, blks_read)
    select c.id, 'db' || d, t, 'db' || d, 9000000, 100000
    from ${ids} c
    cross join generate_series(${at}::timestamptz - interval '1 hour', ${at}::timestamptz, interval '5 minutes') t
    cross join generate_series(1, 3) d`;
  await sql`
    insert into metrics.pg_object_health (connection_id, database_name, collected_at, kind, schemaname, relname,
      object_name, value, size_bytes, detail)
    select c.id, 'db' || d, t, k.kind, 'public', 't' || k.n, 'i' || k.n, k.value, 50000000, 'bench'
    from ${ids} c
    cross join generate_series(${at}::timestamptz - interval '45 minutes', ${at}::timestamptz, interval '15 minutes') t
    cross join generate_series(1, 3) d
    cross join (values ('collected', 0, null::float8), ('duplicate_index', 1, null), ('sequence', 2, 80),
      ('table_bloat', 3, 20000000), ('unused_index', 4, 0)) k(kind, n, value)`;
  await sql`
    insert into metrics.pg_database (connection_id, collected_at, datname, age_datfrozenxid, age_datminmxid)
    select c.id, t, 'db' || d, 200000000 + d, 1000
    from ${ids} c
    cross join generate_series(${at}::timestamptz - interval '1 hour', ${at}::timestamptz, interval '5 minutes') t
    cross join generate_series(1, 4) d`;
  await sql`
    insert into metrics.pg_stat_replication (connection_id, collected_at, role, pid, application_name, state,
      replay_lag)
    select c.id, t, 'primary', 4000, 'standby', 'streaming', interval '2 seconds'
    from ${ids} c
    cross join generate_series(${at}::timestamptz - interval '1 hour', ${at}::timestamptz, interval '30 seconds') t`;
  await sql`
    insert into metrics.pg_replication_slots (connection_id, collected_at, slot_name, slot_type, active, retained_bytes)
    select c.id, t, 'standby', 'physical', true, 16777216
    from ${ids} c
    cross join generate_series(${at}::timestamptz - interval '1 hour', ${at}::timestamptz, interval '5 minutes') t`;
  await sql`
    insert into metrics.pg_server_info (connection_id, collected_at, max_connections)
    select c.id, ${at}::timestamptz - interval '1 hour', 100 from ${ids} c`;
  // The collector's record of each probe's latest run.
  for (const probe of PROBES) {
    await sql.unsafe(
      `insert into probe_runs (connection_id, probe_name, last_run_at)
       select connection_id, $1, max(collected_at) from metrics.${probe}
       where connection_id in (select id from connections where name like 'bench-%') group by connection_id`,
      [probe],
    );
  }
  for (const probe of PROBES) {
    await sql.unsafe(`analyze metrics.${probe}`);
  }
}

/**
 * `connections` monitored connections named bench-1… with an hour of collected rows ending at `now`
 * (the health-check probes' tables and partitions created first). Also seeds the `load` bench.
 */
export async function seedHealthFleet(sql: Sql, now: Date, connections: number): Promise<void> {
  const probes = PROBES.map((name) => findProbe(name) as ProbeDefinition);
  await ensureMetricsTables(sql, probes);
  await new PartitionManager(sql, probes).ensureAround(new Date(now.getTime() - 3600 * 1000));
  await new PartitionManager(sql, probes).ensureAround(now);
  await generate(sql, now, connections);
}

export async function run(): Promise<void> {
  const service = await startApiOnly();
  try {
    const { sql } = service.datastore;
    const now = new Date();
    const generation = await timed(() => seedHealthFleet(sql, now, CONNECTIONS));
    const [{ rows } = { rows: 0 }] = await sql<{ rows: number }[]>`
      select (select count(*) from metrics.pg_stat_activity) + (select count(*) from metrics.pg_stat_all_tables)
        + (select count(*) from metrics.pg_object_health) + (select count(*) from metrics.pg_stat_replication)
        + (select count(*) from metrics.pg_database) + (select count(*) from metrics.pg_stat_database)
        + (select count(*) from metrics.pg_replication_slots) as rows`;
    console.log(`\n## Health checks over ${CONNECTIONS} connections`);
    console.log(`${rows} collected rows generated in ${(generation / 1000).toFixed(1)} s`);

    const passes: number[] = [];
    for (let run = 0; run < 5; run += 1) {
      passes.push(await timed(() => recordHealthChecks(sql, now)));
    }
    const [statuses] = await sql<{ count: number }[]>`select count(*)::int as count from health_check_status`;
    console.log(
      `alerter pass (recordHealthChecks, ${statuses?.count} results stored): median ${percentile(passes, 50).toFixed(0)} ms, ` +
        `max ${Math.max(...passes).toFixed(0)} ms of 5`,
    );

    const token = await loginAdmin(service.url);
    const headers = { authorization: `Bearer ${token}` };
    const [first] = await sql<{ id: number }[]>`select id from connections where name = 'bench-1'`;
    const targets = [
      { name: `GET /api/v1/health (${CONNECTIONS} connections)`, url: `${service.url}/api/v1/health` },
      {
        name: "GET /api/v1/connections/{id}/health",
        url: `${service.url}/api/v1/connections/${first?.id}/health`,
      },
    ];
    console.log(`one request at a time, ${RUNS} requests each:`);
    console.log("| request | p50 ms | p99 ms | bytes |");
    console.log("|---|---|---|---|");
    for (const target of targets) {
      const times: number[] = [];
      let bytes = 0;
      for (let request = 0; request < RUNS; request += 1) {
        times.push(
          await timed(async () => {
            const res = await fetch(target.url, { headers });
            bytes = (await res.text()).length;
            if (res.status !== 200) {
              throw new Error(`${target.name}: ${res.status}`);
            }
          }),
        );
      }
      console.log(
        `| ${target.name} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${bytes} |`,
      );
    }
    const loaded = await load(targets[0]?.name as string, { url: targets[0]?.url as string, headers });
    report("GET /api/v1/health at 50 concurrent clients", [loaded]);
    console.log(`\nfleet view p99 at 50 concurrent clients: ${loaded.p99Ms} ms (goal < 300 ms)`);
  } finally {
    await service.close();
  }
}
