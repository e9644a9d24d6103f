// Database load from active session history: the load query the API's activity operations run
// (ActivityService.load, i.e. activityLoad of @dbmon/datastore) and the endpoints around it, over
// BENCH_ACTIVITY_DAYS (7) days of per-minute aggregates for BENCH_ACTIVITY_CONNECTIONS (100)
// connections, next to the plainest SQL over the same rows (total samples ÷ ticks per bucket).
import { ActivityStore } from "../packages/collector/src/activity-store.js";
import { type ActivityDimension, activityLoad, type Sql } from "../packages/datastore/src/index.js";
import { startApiOnly } from "./datastore.js";
import { loginAdmin, percentile, timed } from "./harness.js";

const CONNECTIONS = Number(process.env.BENCH_ACTIVITY_CONNECTIONS ?? 100);
const DAYS = Number(process.env.BENCH_ACTIVITY_DAYS ?? 7);
const RUNS = Number(process.env.BENCH_ACTIVITY_RUNS ?? 21);
const GOAL_P50_MS = 200;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * A week of what the sampler stores for a fleet: a fifth of the servers busy (about 3 active
 * sessions, ten kinds of sample a minute: CPU, lock, I/O, LWLock and client waits over 3 databases,
 * 5 users, 4 applications, 20 clients and 40 query ids), half moderately busy (five kinds, about
 * 0.7 sessions) and the rest nearly idle (one kind a minute in a tenth of the minutes); one tick a
 * second, with a minute in a hundred sampled half.
 */
async function seed(sql: Sql, ids: number[], end: Date): Promise<void> {
  const start = new Date(end.getTime() - DAYS * DAY_MS);
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const store = new ActivityStore({ sql, logger: quiet, leaseHolder: "bench", now: () => end });
  for (let at = start.getTime(); at <= end.getTime() + 7 * DAY_MS; at += DAY_MS) {
    await store.ensurePartitions(new Date(at));
  }
  for (const id of ids) {
    const kinds = id % 5 === 0 ? 10 : id % 2 === 0 ? 5 : 1;
    await sql`
      insert into metrics.activity_ticks (connection_id, minute, ticks)
      select ${id}, m, case when random() < 0.01 then 30 else 60 end
      from generate_series(${start.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz - interval '1 minute',
        interval '1 minute') m`;
    await sql`
      insert into metrics.activity_minutes (connection_id, minute, database_name, user_name, application_name,
        client_addr, backend_type, state, wait_event_type, wait_event, query_id, samples)
      select ${id}, m, 'db' || (k % 3), 'user' || (k % 5), 'app' || (k % 4), '10.0.' || (k % 2) || '.' || (k % 20),
        'client backend', case when w.type = 'Client' then 'idle in transaction' else 'active' end, w.type, w.event,
        (${id} * 100 + k * 7 % 40)::bigint, greatest(1, (random() * ${kinds === 10 ? 36 : kinds === 5 ? 16 : 10})::int)
      from generate_series(${start.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz - interval '1 minute',
        interval '1 minute') m
      cross join generate_series(1, ${kinds}) k
      cross join lateral (select (array['', 'Lock', 'IO', 'LWLock', 'Client', 'IO', '', '', 'IO', ''])[k] as type,
        (array['', 'transactionid', 'DataFileRead', 'BufferMapping', 'ClientRead', 'WALSync', '', '', 'DataFileWrite', ''])[k]
          as event) w
      where ${kinds} > 1 or random() < 0.1`;
  }
  // The hourly sums the collector adds in the transactions that write the minutes.
  await sql`
    insert into metrics.activity_hours (connection_id, hour, dimension, value, wait_event_type, samples)
    select m.connection_id, date_bin('1 hour', m.minute, timestamptz 'epoch'), d.dimension, d.value,
      m.wait_event_type, sum(m.samples)
    from metrics.activity_minutes m
    cross join lateral (values ('', ''), ('database_name', m.database_name), ('user_name', m.user_name),
      ('application_name', m.application_name), ('client_addr', m.client_addr), ('wait_event', m.wait_event),
      ('query_id', m.query_id::text)) d(dimension, value)
    group by 1, 2, 3, 4, 5`;
  await sql`
    insert into metrics.activity_hour_ticks (connection_id, hour, ticks)
    select connection_id, date_bin('1 hour', minute, timestamptz 'epoch'), sum(ticks)
    from metrics.activity_ticks group by 1, 2`;
  for (const table of ["activity_ticks", "activity_minutes", "activity_hours", "activity_hour_ticks"]) {
    await sql.unsafe(`analyze metrics.${table}`);
  }
}

interface Scenario {
  title: string;
  ids: number[];
  hours: number;
  bucketSeconds: number;
  dimension: ActivityDimension;
  /** The operation's path and query, for the endpoint's time. */
  path: string;
}

export async function run(): Promise<void> {
  const service = await startApiOnly();
  try {
    const { sql } = service.datastore;
    const [group] = await sql<
      { id: number }[]
    >`insert into cluster_groups (name) values ('bench') returning id`;
    const [cluster] = await sql<{ id: number }[]>`
      insert into clusters (name, group_id) values ('bench', ${group?.id as number}) returning id`;
    const ids = (
      await sql<{ id: number }[]>`
        insert into connections (name, host, port, database_name, username, owner_username, is_monitored, cluster_id)
        select 'bench-' || g, '127.0.0.1', 5432, 'postgres', 'postgres', 'admin', false, ${cluster?.id as number}
        from generate_series(1, ${CONNECTIONS}) g returning id`
    )
      .map((row) => row.id)
      .sort((a, b) => a - b);
    const end = new Date(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS);
    const seeding = await timed(() => seed(sql, ids, end));
    const size = (table: string) => `pg_size_pretty((select sum(pg_total_relation_size(c.oid)) from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'metrics' and c.relname like '${table}%' and c.relkind = 'r'))`;
    const [counts] = await sql.unsafe<
      { minutes: number; ticks: number; size: string; hours: number; hours_size: string }[]
    >(
      `select (select count(*) from metrics.activity_minutes)::int as minutes,
        (select count(*) from metrics.activity_ticks)::int as ticks,
        ${size("activity_minutes")} as size,
        (select count(*) from metrics.activity_hours)::int as hours,
        ${size("activity_hours")} as hours_size`,
    );
    const token = await loginAdmin(service.url);
    const busy = ids.find((id) => id % 5 === 0) as number;
    const range = (hours: number) =>
      `start_time=${new Date(end.getTime() - hours * 3600_000).toISOString()}&end_time=${end.toISOString()}`;
    const scenarios: Scenario[] = [
      {
        title: "1 busy connection, 1 h, 1-min buckets, by wait event type",
        ids: [busy],
        hours: 1,
        bucketSeconds: 60,
        dimension: "wait_event_type",
        path: `/api/v1/connections/${busy}/activity/load?dimension=wait_event_type&${range(1)}&bucket_seconds=60`,
      },
      {
        title: "1 busy connection, 24 h, 15-min buckets, by query",
        ids: [busy],
        hours: 24,
        bucketSeconds: 900,
        dimension: "query",
        path: `/api/v1/connections/${busy}/activity/load?dimension=query&${range(24)}&bucket_seconds=900`,
      },
      {
        title: `1 busy connection, ${DAYS} days, 1-h buckets, by wait event`,
        ids: [busy],
        hours: DAYS * 24,
        bucketSeconds: 3600,
        dimension: "wait_event",
        path: `/api/v1/connections/${busy}/activity/load?dimension=wait_event&${range(DAYS * 24)}&bucket_seconds=3600`,
      },
      {
        title: `group of ${CONNECTIONS}, 1 h, 1-min buckets, by server`,
        ids,
        hours: 1,
        bucketSeconds: 60,
        dimension: "server",
        path: `/api/v1/cluster-groups/${group?.id}/activity/load?dimension=server&${range(1)}&bucket_seconds=60`,
      },
      {
        title: `group of ${CONNECTIONS}, 24 h, 15-min buckets, by wait event type`,
        ids,
        hours: 24,
        bucketSeconds: 900,
        dimension: "wait_event_type",
        path: `/api/v1/cluster-groups/${group?.id}/activity/load?dimension=wait_event_type&${range(24)}&bucket_seconds=900`,
      },
      {
        title: `group of ${CONNECTIONS}, ${DAYS} days, 2-h buckets, by wait event type`,
        ids,
        hours: DAYS * 24,
        bucketSeconds: 7200,
        dimension: "wait_event_type",
        path: `/api/v1/cluster-groups/${group?.id}/activity/load?dimension=wait_event_type&${range(DAYS * 24)}&bucket_seconds=7200`,
      },
      {
        title: `group of ${CONNECTIONS}, ${DAYS} days, 2-h buckets, by query`,
        ids,
        hours: DAYS * 24,
        bucketSeconds: 7200,
        dimension: "query",
        path: `/api/v1/cluster-groups/${group?.id}/activity/load?dimension=query&${range(DAYS * 24)}&bucket_seconds=7200`,
      },
    ];
    console.log(`\n## Database load (active session history), ${DAYS} days x ${CONNECTIONS} connections`);
    console.log(
      `${counts?.minutes} activity_minutes rows (${counts?.size}), ${counts?.ticks} activity_ticks rows, ` +
        `${counts?.hours} activity_hours rows (${counts?.hours_size}), ` +
        `seeded in ${(seeding / 1000).toFixed(1)} s; ${RUNS} runs each, goal: load query p50 < ${GOAL_P50_MS} ms`,
    );
    console.log(
      "| scenario | plain SQL p50 ms | load query p50 ms | load query p95 ms | endpoint p50 ms | load query / plain SQL | goal |",
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const scenario of scenarios) {
      const window = { start: new Date(end.getTime() - scenario.hours * 3600_000), end };
      // The service method the API's operations call (ActivityService.load is activityLoad).
      const load = () =>
        activityLoad(sql, {
          connectionIds: scenario.ids,
          ...window,
          bucketSeconds: scenario.bucketSeconds,
          dimension: scenario.dimension,
          seriesLimit: 10,
        });
      // The least any load answer reads: total samples over ticks per bucket, no dimension.
      const plain = () =>
        sql.unsafe(
          `select b.bucket, s.samples / b.ticks as load
           from (select date_bin(make_interval(secs => $4), minute, timestamptz 'epoch') as bucket, sum(ticks)::float8 as ticks
                 from metrics.activity_ticks where connection_id = any($1::int[]) and minute >= $2 and minute < $3 group by 1) b
           left join (select date_bin(make_interval(secs => $4), minute, timestamptz 'epoch') as bucket, sum(samples)::float8 as samples
                 from metrics.activity_minutes where connection_id = any($1::int[]) and minute >= $2 and minute < $3 group by 1) s
             using (bucket)`,
          [scenario.ids, window.start.toISOString(), window.end.toISOString(), scenario.bucketSeconds],
        );
      const endpoint = async () => {
        const res = await fetch(`${service.url}${scenario.path}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        if (res.status !== 200) {
          throw new Error(`${scenario.path} answered ${res.status}: ${await res.text()}`);
        }
        await res.json();
      };
      await Promise.all([load(), plain(), endpoint()].map((task) => task.then(() => undefined)));
      const times = { load: [] as number[], plain: [] as number[], endpoint: [] as number[] };
      for (let index = 0; index < RUNS; index += 1) {
        times.plain.push(await timed(plain));
        times.load.push(await timed(load));
        times.endpoint.push(await timed(endpoint));
      }
      const p50 = percentile(times.load, 50);
      const plainP50 = percentile(times.plain, 50);
      console.log(
        `| ${scenario.title} | ${plainP50.toFixed(1)} | ${p50.toFixed(1)} | ${percentile(times.load, 95).toFixed(1)} | ` +
          `${percentile(times.endpoint, 50).toFixed(1)} | ${(p50 / plainP50).toFixed(2)}x | ${p50 < GOAL_P50_MS ? "met" : "MISSED"} |`,
      );
    }
  } finally {
    await service.close();
  }
}
