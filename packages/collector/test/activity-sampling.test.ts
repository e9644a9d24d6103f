import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActivityStore, samplesPartitionName } from "../src/activity-store.js";
import {
  COLLECTOR_APPLICATION_NAME,
  findProbe,
  type RunningCollector,
  startCollector,
} from "../src/index.js";
import { dropExpiredActivity } from "../src/retention.js";
import {
  createMonitoredDatabase,
  insertConnection,
  type MonitoredDatabase,
  openTestEnvironment,
  quietLogger,
  type TestEnvironment,
  waitFor,
} from "./support.js";

/**
 * Active session history on a real server: the test's own server (the machine's PostgreSQL 15 with
 * TEST_DATABASE_URL, the embedded 18 without), sampled once a second by a running collector while
 * sessions of this test contend for a row lock and burn CPU.
 */
describe("activity sampling", () => {
  let env: TestEnvironment;
  let work: MonitoredDatabase;
  let quiet: MonitoredDatabase;
  let workId: number;
  let quietId: number;
  let collector: RunningCollector | undefined;
  const workload: postgres.Sql[] = [];

  function session(url: string): postgres.Sql {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    workload.push(sql);
    return sql;
  }

  beforeAll(async () => {
    env = await openTestEnvironment();
    const server = new URL(env.testDb.serverUrl);
    work = await createMonitoredDatabase(env.testDb.serverUrl, async (sql) => {
      await sql`create table contended (id int primary key, value int not null)`;
      await sql`insert into contended values (1, 0)`;
    });
    quiet = await createMonitoredDatabase(env.testDb.serverUrl);
    const fields = {
      host: server.hostname,
      port: Number(server.port || 5432),
      username: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password) || undefined,
    };
    // The lower id also collects what the server runs outside registered databases (other tests'
    // sessions, background processes): the quiet database's connection gets its own sessions only.
    workId = await insertConnection(env, { ...fields, name: "work", database_name: work.name });
    quietId = await insertConnection(env, { ...fields, name: "quiet", database_name: quiet.name });
  });

  afterAll(async () => {
    await collector?.stop();
    await Promise.all(workload.map((sql) => sql.end({ timeout: 1 }).catch(() => {})));
    await work?.drop();
    await quiet?.drop();
    await env?.close();
  });

  it("samples lock waits with their blockers, CPU with its query id, and nothing of its own", async () => {
    const { sql } = env.datastore;
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      instanceId: "activity-test",
      // Another probe keeps collector sessions busy on the server while it is sampled.
      probes: [findProbe("pg_stat_activity") ?? expect.fail("pg_stat_activity probe")],
      intervalOverrides: { pg_stat_activity: 1 },
      topologySeconds: 0,
      rollupSeconds: 0,
    });
    await waitFor("both connections collected", async () =>
      collector?.connectionIds().length === 2 ? true : undefined,
    );
    // A tick or two first: the lock wait below is then sampled at the rhythm, not at start.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const holder = session(work.url);
    const waiter = session(work.url);
    const burner = session(work.url);
    const pidOf = async (sql: postgres.Sql) =>
      Number((await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]?.pid);
    const holderPid = await pidOf(holder);
    const waiterPid = await pidOf(waiter);
    const burnerPid = await pidOf(burner);
    await holder`begin`;
    await holder`update contended set value = value + 1 where id = 1`;
    const blocked = waiter`update contended set value = value + 2 where id = 1`.catch(
      (error: unknown) => error,
    );
    // A set-returning function in the select list: no tuplestore, no temporary files, only CPU.
    await burner`set compute_query_id = on`;
    await burner`set statement_timeout = '20s'`;
    const burning = burner`select count(*) from (select generate_series(1, 2000000000) as i) s`.catch(
      (error: unknown) => error,
    );

    // The waiter blocks as soon as its update arrives: within 3 s it is sampled and stored.
    const lockWait = await waitFor(
      "the lock wait sampled",
      async () => {
        const [row] = await sql<{ wait_event: string; blocking_pids: number[]; connection_id: number }[]>`
          select wait_event, blocking_pids, connection_id from metrics.activity_samples
          where pid = ${waiterPid} and wait_event_type = 'Lock' and ${holderPid}::int = any(blocking_pids)
          limit 1`;
        return row;
      },
      3000,
    );
    expect(lockWait).toMatchObject({ wait_event: "transactionid", connection_id: workId });

    const onCpu = await waitFor(
      "the CPU-bound query sampled",
      async () => {
        const [row] = await sql<{ query_id: string | null; query: string; database_name: string }[]>`
          select query_id::text, query, database_name from metrics.activity_samples
          where pid = ${burnerPid} and state = 'active' and wait_event_type is null
          limit 1`;
        return row;
      },
      3000,
    );
    expect(onCpu.query_id).toMatch(/^-?[1-9]\d*$/);
    expect(onCpu.query).toContain("generate_series");
    expect(onCpu.database_name).toBe(work.name);
    // The holder is idle in its transaction: sampled as such, blocking nobody itself.
    const [holderSample] = await sql<{ state: string; blocking_pids: number[] }[]>`
      select state, blocking_pids from metrics.activity_samples where pid = ${holderPid} limit 1`;
    expect(holderSample).toEqual({ state: "idle in transaction", blocking_pids: [] });

    await holder`rollback`;
    expect(await blocked).not.toBeInstanceOf(Error);
    await session(work.url)`select pg_cancel_backend(${burnerPid})`;
    expect(await burning).toBeInstanceOf(Error);

    await collector.stop();
    collector = undefined;

    // In this test's databases only: the work connection also samples other test files' sessions on
    // the shared server, and some of those run the probes' tagged SQL from sessions of their own.
    const own = await sql<{ n: number }[]>`
      select count(*)::int as n from metrics.activity_samples
      where database_name = any(${[work.name, quiet.name]}::text[])
        and (application_name = ${COLLECTOR_APPLICATION_NAME} or query like '%dbmon collector%')`;
    expect(own[0]?.n).toBe(0);

    // The quiet database had no session at all: no sample, but its ticks were counted.
    const [quietCounts] = await sql<{ samples: number; aggregated: number; ticks: number }[]>`
      select (select count(*)::int from metrics.activity_samples where connection_id = ${quietId}) as samples,
        (select count(*)::int from metrics.activity_minutes where connection_id = ${quietId}) as aggregated,
        (select coalesce(sum(ticks), 0)::int from metrics.activity_ticks where connection_id = ${quietId})
          as ticks`;
    expect(quietCounts?.samples).toBe(0);
    expect(quietCounts?.aggregated).toBe(0);
    expect(quietCounts?.ticks).toBeGreaterThan(2);

    // The per-minute counts add up to the raw samples, group by group.
    const mismatches = await sql`
      with raw as (
        select connection_id, date_trunc('minute', sampled_at) as minute, coalesce(database_name, '') as d,
          coalesce(user_name, '') as u, application_name as a, coalesce(client_addr, '') as c, backend_type as b,
          coalesce(state, '') as s, coalesce(wait_event_type, '') as wt, coalesce(wait_event, '') as w,
          coalesce(query_id, 0) as q, count(*)::int as samples
        from metrics.activity_samples group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
      agg as (
        select connection_id, minute, database_name as d, user_name as u, application_name as a,
          client_addr as c, backend_type as b, state as s, wait_event_type as wt, wait_event as w,
          query_id as q, samples
        from metrics.activity_minutes)
      select * from raw full join agg using (connection_id, minute, d, u, a, c, b, s, wt, w, q)
      where raw.samples is distinct from agg.samples`;
    expect(mismatches).toEqual([]);
    const [totals] = await sql<{ raw: number; aggregated: number }[]>`
      select (select count(*)::int from metrics.activity_samples) as raw,
        (select sum(samples)::int from metrics.activity_minutes) as aggregated`;
    expect(totals?.raw).toBeGreaterThan(0);
    expect(totals?.aggregated).toBe(totals?.raw);
    // The hourly sums written in the same transactions are the minutes' per hour, key for key.
    const hourMismatches = await sql`
      with minutes as (
        select m.connection_id, date_bin('1 hour', m.minute, timestamptz 'epoch') as hour, d.dimension, d.value,
          m.wait_event_type, sum(m.samples)::int as samples
        from metrics.activity_minutes m
        cross join lateral (values ('', ''), ('database_name', m.database_name), ('user_name', m.user_name),
          ('application_name', m.application_name), ('client_addr', m.client_addr), ('wait_event', m.wait_event),
          ('query_id', m.query_id::text)) d(dimension, value)
        group by 1, 2, 3, 4, 5)
      select * from minutes full join metrics.activity_hours h
        using (connection_id, hour, dimension, value, wait_event_type)
      where minutes.samples is distinct from h.samples`;
    expect(hourMismatches).toEqual([]);
    const tickMismatches = await sql`
      with minutes as (
        select connection_id, date_bin('1 hour', minute, timestamptz 'epoch') as hour, sum(ticks)::int as ticks
        from metrics.activity_ticks group by 1, 2)
      select * from minutes full join metrics.activity_hour_ticks h using (connection_id, hour)
      where minutes.ticks is distinct from h.ticks`;
    expect(tickMismatches).toEqual([]);
    // Every dimension's rows count each sample once.
    const hourTotals = await sql<{ dimension: string; samples: number }[]>`
      select dimension, sum(samples)::int as samples from metrics.activity_hours group by 1 order by 1`;
    expect(hourTotals.map((row) => row.dimension)).toEqual([
      "",
      "application_name",
      "client_addr",
      "database_name",
      "query_id",
      "user_name",
      "wait_event",
    ]);
    expect(hourTotals.map((row) => row.samples)).toEqual(hourTotals.map(() => totals?.raw));
    // A sample's ticks: the work database was sampled in as many ticks as the quiet one.
    const [workTicks] = await sql<{ ticks: number }[]>`
      select sum(ticks)::int as ticks from metrics.activity_ticks where connection_id = ${workId}`;
    expect(workTicks?.ticks).toBe(quietCounts?.ticks);
  });

  it("appears in the probe configuration, where turning it off stops the sampling", async () => {
    const { sql } = env.datastore;
    const [config] = await sql`
      select collection_interval_seconds, retention_days, is_enabled from probe_configs
      where name = 'activity_sampling' and scope = 'global'`;
    expect(config).toEqual({ collection_interval_seconds: 1, retention_days: 7, is_enabled: true });
    await sql`
      insert into probe_configs (name, collection_interval_seconds, retention_days, is_enabled, scope, scope_id)
      values ('activity_sampling', 1, 7, false, 'server', ${quietId})`;
    await sql`truncate metrics.activity_ticks`;
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      probes: [],
      topologySeconds: 0,
      rollupSeconds: 0,
    });
    await waitFor("both connections collected", async () =>
      collector?.connectionIds().length === 2 ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await collector.stop();
    collector = undefined;
    const ticks = await sql<{ connection_id: number; ticks: number }[]>`
      select connection_id, sum(ticks)::int as ticks from metrics.activity_ticks group by 1 order by 1`;
    expect(ticks.map((row) => row.connection_id)).toEqual([workId]);
    expect(ticks[0]?.ticks).toBeGreaterThan(1);
  });

  it("retention drops raw samples past their hour and aggregates past the probe's retention", async () => {
    const { sql } = env.datastore;
    const now = new Date();
    const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3600_000);
    const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 3600_000);
    // Partitions for old hours (rows in them expire with the partition) beside the default partition.
    const store = new ActivityStore({ sql, logger: quietLogger, leaseHolder: "none", now: () => now });
    await store.ensurePartitions(hoursAgo(3));
    await sql`truncate metrics.activity_samples, metrics.activity_minutes, metrics.activity_ticks,
      metrics.activity_hours, metrics.activity_hour_ticks`;
    for (const [at, pid] of [
      [hoursAgo(3), 1],
      [hoursAgo(2.5), 2],
      [hoursAgo(5), 3],
      [hoursAgo(0.5), 4],
      [now, 5],
    ] as const) {
      await sql`
        insert into metrics.activity_samples (connection_id, sampled_at, pid, backend_type)
        values (${workId}, ${at.toISOString()}, ${pid}, 'client backend')`;
    }
    for (const [at, samples] of [
      [daysAgo(30), 1],
      [daysAgo(10), 2],
      [daysAgo(1), 3],
    ] as const) {
      await sql`
        insert into metrics.activity_minutes (connection_id, minute, samples)
        values (${workId}, date_trunc('minute', ${at.toISOString()}::timestamptz), ${samples})`;
      await sql`
        insert into metrics.activity_ticks (connection_id, minute, ticks)
        values (${workId}, date_trunc('minute', ${at.toISOString()}::timestamptz), 60)`;
      await sql`
        insert into metrics.activity_hours (connection_id, hour, dimension, value, wait_event_type, samples)
        values (${workId}, date_bin('1 hour', ${at.toISOString()}::timestamptz, timestamptz 'epoch'), '', '', '',
          ${samples})`;
      await sql`
        insert into metrics.activity_hour_ticks (connection_id, hour, ticks)
        values (${workId}, date_bin('1 hour', ${at.toISOString()}::timestamptz, timestamptz 'epoch'), 60)`;
    }
    const hour = (at: Date) => new Date(at.getTime() - (at.getTime() % 3600_000));
    const oldHours = [hour(hoursAgo(3)), new Date(hour(hoursAgo(3)).getTime() + 3600_000)];

    const dropped = await dropExpiredActivity(sql, now, 60 * 60_000, quietLogger);

    const pids = await sql<{ pid: number }[]>`select pid from metrics.activity_samples order by pid`;
    expect(pids.map((row) => row.pid)).toEqual([4, 5]);
    const minutes = await sql<{ samples: number }[]>`select samples from metrics.activity_minutes order by 1`;
    expect(minutes.map((row) => row.samples)).toEqual([3]);
    const [ticks] = await sql<{ n: number }[]>`select count(*)::int as n from metrics.activity_ticks`;
    expect(ticks?.n).toBe(1);
    const hours = await sql<{ samples: number }[]>`select samples from metrics.activity_hours order by 1`;
    expect(hours.map((row) => row.samples)).toEqual([3]);
    const [hourTicks] = await sql<
      { n: number }[]
    >`select count(*)::int as n from metrics.activity_hour_ticks`;
    expect(hourTicks?.n).toBe(1);
    expect(dropped).toEqual(expect.arrayContaining(oldHours.map(samplesPartitionName)));
    const [left] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_class where relname = any(${oldHours.map(samplesPartitionName)})`;
    expect(left?.n).toBe(0);
  });
});
