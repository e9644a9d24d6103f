import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentValues, type MetricDefinition, metricDefinitions } from "../src/metrics.js";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, alertsOf, createHarness, type Harness, ruleId } from "./support.js";

// The two rules over the activity sampler's tables (database_load_above_vcpus,
// session_blocked_duration): seeded rows as the sampler stores them, and real lock contention on
// the test server sampled the way the sampler samples it.

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  await createMetricTables(h.datastore.sql);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const MINUTE = 60_000;
const minuteOf = (at: Date) => new Date(Math.floor(at.getTime() / MINUTE) * MINUTE);

async function vcpus(connectionId: number, count: number, at: Date): Promise<void> {
  await h.datastore
    .sql`insert into metrics.pg_sys_cpu_info (connection_id, collected_at, logical_processor, no_of_cores)
    values (${connectionId}, ${at.toISOString()}, ${count}, ${count})`;
}

/**
 * A minute as the sampler stores it when the minute closes: its ticks, and per kind of sample how
 * many there were (CPU: active without a wait event; the others waiting).
 */
async function minute(
  connectionId: number,
  start: Date,
  ticks: number,
  samples: { cpu?: number; lock?: number; io?: number },
): Promise<void> {
  const sql = h.datastore.sql;
  await sql`insert into metrics.activity_ticks (connection_id, minute, ticks) values (${connectionId}, ${start.toISOString()}, ${ticks})`;
  const kinds = [
    { wait: "", event: "", user: "app", count: samples.cpu ?? 0 },
    { wait: "Lock", event: "transactionid", user: "app", count: samples.lock ?? 0 },
    { wait: "IO", event: "DataFileRead", user: "report", count: samples.io ?? 0 },
  ].filter((kind) => kind.count > 0);
  for (const kind of kinds) {
    await sql`insert into metrics.activity_minutes (connection_id, minute, database_name, user_name, backend_type, state,
        wait_event_type, wait_event, query_id, samples)
      values (${connectionId}, ${start.toISOString()}, 'app', ${kind.user}, 'client backend', 'active', ${kind.wait},
        ${kind.event}, 42, ${kind.count})`;
  }
}

/** The last five complete minutes before `now`, oldest first. */
const lastFiveMinutes = (now: Date) =>
  [5, 4, 3, 2, 1].map((ago) => new Date(minuteOf(now).getTime() - ago * MINUTE));

describe("database load above the host's vCPUs", () => {
  it("compares the 5-minute average of active sessions with the vCPUs; gaps do not dilute it; idle fires nothing", async () => {
    const now = new Date();
    h.clock.set(now);
    const busy = await addConnection(h.datastore, "busy");
    const gappy = await addConnection(h.datastore, "gappy");
    const idle = await addConnection(h.datastore, "idle");
    const spike = await addConnection(h.datastore, "spike");
    const unknownHost = await addConnection(h.datastore, "no-cpu-info");
    for (const id of [busy, gappy, idle, spike]) {
      await vcpus(id, 2, new Date(now.getTime() - 3600_000));
    }
    for (const [index, start] of lastFiveMinutes(now).entries()) {
      // 2.5 sessions on average: 1.5 on CPU, 0.5 waiting on locks, 0.5 on reads.
      await minute(busy, start, 60, { cpu: 90, lock: 30, io: 30 });
      // Sampled a third of the time: the same 2.5 sessions per tick.
      await minute(gappy, start, 20, { cpu: 30, lock: 10, io: 10 });
      await minute(idle, start, 60, {});
      // Ten sessions in the last minute only: 2 on average over five minutes, exactly the vCPUs.
      await minute(spike, start, 60, index === 4 ? { cpu: 600 } : {});
      await minute(unknownHost, start, 60, { cpu: 600 });
    }
    const alerter = h.alerter({ anomaly: false });
    await alerter.evaluate();
    const alerts = await h.datastore.sql<{ connection_id: number; metric_value: number; status: string }[]>`
      select a.connection_id, a.metric_value, a.status from alerts a join alert_rules r on r.id = a.rule_id
      where r.name = 'database_load_above_vcpus' order by a.connection_id`;
    expect(alerts).toEqual([
      { connection_id: busy, metric_value: 1.25, status: "active" },
      { connection_id: gappy, metric_value: 1.25, status: "active" },
    ]);
    expect(await alertsOf(h.datastore, "session_blocked_duration")).toEqual([]);

    // An idle minute brings busy's average down to its vCPUs (2 sessions): cleared.
    const next = new Date(minuteOf(now).getTime() + MINUTE + 5_000);
    await minute(busy, minuteOf(now), 60, {});
    await minute(gappy, minuteOf(now), 20, { cpu: 50 });
    h.clock.set(next);
    await alerter.evaluate();
    const after = await h.datastore.sql<{ connection_id: number; status: string }[]>`
      select a.connection_id, a.status from alerts a join alert_rules r on r.id = a.rule_id
      where r.name = 'database_load_above_vcpus' order by a.connection_id`;
    expect(after).toEqual([
      { connection_id: busy, status: "cleared" },
      { connection_id: gappy, status: "active" },
    ]);
    await h.datastore
      .sql`delete from connections where id = any(${[busy, gappy, idle, spike, unknownHost]}::int[])`;
  });

  it("sums the load of a server's connections and alerts once for the server", async () => {
    const now = new Date();
    h.clock.set(now);
    // Two databases of one server (one address), each connection storing its database's sessions.
    const first = await addConnection(h.datastore, "server db one", { port: 7101, database: "one" });
    const second = await addConnection(h.datastore, "server db two", { port: 7101, database: "two" });
    await vcpus(first, 1, new Date(now.getTime() - 3600_000));
    for (const start of lastFiveMinutes(now)) {
      // 1.5 sessions in each database: 3 on the server's single vCPU; each database alone is 1.5.
      await minute(first, start, 60, { cpu: 90 });
      await minute(second, start, 60, { cpu: 60, lock: 30 });
    }
    const alerter = h.alerter({ anomaly: false });
    await alerter.evaluate();
    const alerts = await h.datastore.sql<
      { connection_id: number; metric_value: number; status: string; server_wide: boolean }[]
    >`
      select a.connection_id, a.metric_value, a.status, a.server_wide from alerts a join alert_rules r on r.id = a.rule_id
      where r.name = 'database_load_above_vcpus'`;
    expect(alerts).toEqual([{ connection_id: first, metric_value: 3, status: "active", server_wide: true }]);
    await h.datastore.sql`delete from connections where id = any(${[first, second]}::int[])`;
  });

  it("a per-server override of the ratio applies, as to every rule", async () => {
    const now = new Date();
    h.clock.set(now);
    const server = await addConnection(h.datastore, "overridden");
    await vcpus(server, 4, now);
    for (const start of lastFiveMinutes(now)) {
      await minute(server, start, 60, { cpu: 180 });
    }
    const alerter = h.alerter({ anomaly: false });
    await alerter.evaluate();
    // 3 sessions on 4 vCPUs: 0.75, under the default 1.
    expect(await alertsOf(h.datastore, "database_load_above_vcpus")).toEqual([]);
    await h.datastore.sql`
      insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled)
      values (${await ruleId(h.datastore, "database_load_above_vcpus")}, 'server', ${server}, '>', 0.5, 'critical', true)`;
    await alerter.evaluate();
    expect(await alertsOf(h.datastore, "database_load_above_vcpus")).toMatchObject([
      { status: "active", severity: "critical", metric_value: 0.75 },
    ]);
    await h.datastore.sql`delete from connections where id = ${server}`;
  });

  it("reads in proportion to the minutes when the newest minutes are past the statistics", async () => {
    // At a fleet's scale the planner, seeing none of the newest minutes in the statistics of the
    // week's partition, estimated a row or two for them, and ran the load's window (and the join of
    // connections with their servers) once per minute of every connection: 26 s for 1,000 connections.
    const now = new Date();
    h.clock.set(now);
    const sql = h.datastore.sql;
    const ids = await sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username)
      select 'fleet ' || g, 'fleet.test', 6000 + g / 20, 'db' || g, 'postgres', 'admin' from generate_series(1, 200) g
      returning id`;
    const fleet = ids.map((row) => row.id);
    await sql`insert into metrics.pg_sys_cpu_info (connection_id, collected_at, logical_processor, no_of_cores)
      select id, ${new Date(now.getTime() - 3600_000).toISOString()}, 4, 4 from unnest(${fleet}::int[]) id`;
    const history = async (from: number, to: number) => {
      await sql`insert into metrics.activity_ticks (connection_id, minute, ticks)
        select id, date_trunc('minute', ${now.toISOString()}::timestamptz) - make_interval(mins => m), 60
        from unnest(${fleet}::int[]) id, generate_series(${from}::int, ${to}::int) m`;
      await sql`insert into metrics.activity_minutes (connection_id, minute, database_name, user_name, backend_type,
          state, wait_event_type, wait_event, query_id, samples)
        select id, date_trunc('minute', ${now.toISOString()}::timestamptz) - make_interval(mins => m), 'app', 'app',
          'client backend', 'active', '', '', 42, 30
        from unnest(${fleet}::int[]) id, generate_series(${from}::int, ${to}::int) m`;
    };
    await history(7, 120);
    await sql`analyze connections, metrics.activity_ticks, metrics.activity_minutes`;
    await history(1, 6);

    // biome-ignore lint/suspicious/noExplicitAny: EXPLAIN's JSON, walked below
    const plans: any[] = [];
    const explaining = new Proxy(sql, {
      get: (target, property) =>
        property === "unsafe"
          ? async (statement: string, parameters: string[]) => {
              const rows = await target.unsafe(`explain (analyze, format json) ${statement}`, parameters);
              plans.push(rows);
              return [];
            }
          : Reflect.get(target, property),
    });
    await currentValues(
      explaining,
      metricDefinitions["activity_sampling.load_per_vcpu"] as MetricDefinition,
      now,
    );
    expect(plans).toHaveLength(1);
    // Work in proportion to the minutes read: each node's rows over all its runs, summed. A plan that
    // reads one side of a join once per row of the other grows with their product.
    let rowsRead = 0;
    const walk = (node: { "Actual Rows": number; "Actual Loops": number; Plans?: unknown[] }) => {
      rowsRead += node["Actual Rows"] * node["Actual Loops"];
      for (const child of (node.Plans ?? []) as (typeof node)[]) {
        walk(child);
      }
    };
    walk(plans[0]?.[0]?.["QUERY PLAN"][0].Plan);
    // The minutes read: each connection's ticks and samples of the last six minutes. At 200
    // connections the plan that re-ran the load per minute read 805,000 rows; reading each connection's
    // minutes once per connection, about 99,000; once per server (11 servers), about 13,000.
    const minutesRead = fleet.length * 6 * 2;
    expect(rowsRead).toBeLessThan(20 * minutesRead);
    const values = await currentValues(
      sql,
      metricDefinitions["activity_sampling.load_per_vcpu"] as MetricDefinition,
      now,
    );
    // One value per server (port), under its lowest-id connection: its connections' 30 samples a
    // minute each over 60 ticks, on 4 vCPUs.
    const servers = await sql<{ id: number; connections: number }[]>`
      select min(id)::int as id, count(*)::int as connections from connections
      where id = any(${fleet}::int[]) group by port`;
    expect(
      values
        .filter((value) => fleet.includes(value.connection_id))
        .map((value) => [value.connection_id, value.value])
        .sort(([a], [b]) => Number(a) - Number(b)),
    ).toEqual(
      servers
        .map((server) => [server.id, (server.connections * 30) / 60 / 4])
        .sort(([a], [b]) => Number(a) - Number(b)),
    );
    await sql`delete from connections where id = any(${fleet}::int[])`;
  });

  it("learns baselines from the minutes like any metric", async () => {
    const now = new Date();
    h.clock.set(now);
    const server = await addConnection(h.datastore, "history");
    await vcpus(server, 2, new Date(now.getTime() - 4 * 3600_000));
    // Three complete hours before the current one, one session on average each minute.
    const hourStart = Math.floor(now.getTime() / 3600_000) * 3600_000;
    for (let at = hourStart - 3 * 3600_000; at < hourStart; at += MINUTE) {
      await minute(server, new Date(at), 60, { cpu: 60 });
    }
    const alerter = h.alerter({ anomaly: { warmupSamples: 30, warmupSeconds: 3600 } });
    expect(await alerter.calculateBaselines({ full: true })).toBe(true);
    const [baseline] = await h.datastore.sql<{ mean: number; sample_count: number }[]>`
      select mean, sample_count from metric_baselines
      where connection_id = ${server} and metric_name = 'activity_sampling.load_per_vcpu' and period = 'all'`;
    expect(baseline).toMatchObject({ mean: 0.5, sample_count: 180 });
    await h.datastore.sql`delete from connections where id = ${server}`;
  });
});

/** Sessions of one sampled moment, as the sampler stores them (only the non-idle ones). */
async function moment(
  connectionId: number,
  at: Date,
  sessions: { pid: number; queryStart: Date; blockedBy?: number }[],
): Promise<void> {
  for (const session of sessions) {
    const blocked = session.blockedBy !== undefined;
    await h.datastore.sql`
      insert into metrics.activity_samples (connection_id, sampled_at, pid, backend_type, state, wait_event_type,
        wait_event, query_start, blocking_pids)
      values (${connectionId}, ${at.toISOString()}, ${session.pid}, 'client backend', 'active',
        ${blocked ? "Lock" : null}, ${blocked ? "relation" : null}, ${session.queryStart.toISOString()},
        ${blocked ? [session.blockedBy as number] : []}::int[])`;
  }
}

describe("sessions blocked longer than the threshold", () => {
  it("counts only uninterrupted runs of blocked samples of one statement", async () => {
    const now = new Date();
    const server = await addConnection(h.datastore, "blocked");
    // One tick a second in the last complete minute.
    await minute(server, new Date(minuteOf(now).getTime() - MINUTE), 60, {});
    const started = new Date(now.getTime() - 60_000);
    // pid 10: blocked 45 s, a sample not blocked, then blocked again for the last 14 s.
    // pid 11: a statement blocked for the last 25 s, after an earlier statement blocked 30 s.
    for (let second = 60; second >= 0; second -= 1) {
      const at = new Date(now.getTime() - second * 1000);
      const elapsed = 60 - second;
      await moment(server, at, [
        { pid: 10, queryStart: started, ...(elapsed === 45 ? {} : { blockedBy: 99 }) },
        elapsed < 30
          ? { pid: 11, queryStart: started, blockedBy: 99 }
          : elapsed < 35
            ? { pid: 11, queryStart: new Date(started.getTime() + 30_000) }
            : { pid: 11, queryStart: new Date(started.getTime() + 35_000), blockedBy: 99 },
        { pid: 99, queryStart: started },
      ]);
    }
    h.clock.set(new Date(now.getTime() + 500));
    const alerter = h.alerter({ anomaly: false });
    await alerter.evaluate();
    // The longest run going on now: pid 11's, 25 s; under 30 s.
    expect(await alertsOf(h.datastore, "session_blocked_duration")).toEqual([]);
    const rule = await ruleId(h.datastore, "session_blocked_duration");
    await h.datastore.sql`
      insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled)
      values (${rule}, 'server', ${server}, '>', 20, 'warning', true)`;
    await alerter.evaluate();
    expect(await alertsOf(h.datastore, "session_blocked_duration")).toMatchObject([
      { status: "active", metric_value: 25 },
    ]);
    // No sample for longer than three ticks and the store's delay: every session is idle now.
    h.clock.set(new Date(now.getTime() + 6_000));
    await alerter.evaluate();
    expect(await alertsOf(h.datastore, "session_blocked_duration")).toMatchObject([{ status: "cleared" }]);
    await h.datastore.sql`delete from connections where id = ${server}`;
  });

  it("real lock contention on the test server fires with its connection and clears once the blocker commits", async () => {
    const server = await addConnection(h.datastore, "local");
    const other = await addConnection(h.datastore, "other");
    const rule = await ruleId(h.datastore, "session_blocked_duration");
    // Seconds instead of the default 30 s.
    await h.datastore.sql`
      insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled)
      values (${rule}, 'server', ${server}, '>', 2, 'critical', true)`;
    // The sampler's last complete minute: a tick each half second.
    await minute(server, new Date(minuteOf(new Date()).getTime() - MINUTE), 120, {});
    await minute(other, new Date(minuteOf(new Date()).getTime() - MINUTE), 120, {});
    const sample = () => h.datastore.sql`
      insert into metrics.activity_samples (connection_id, sampled_at, pid, database_name, user_name, application_name,
        backend_type, state, wait_event_type, wait_event, query, xact_start, query_start, state_change, blocking_pids)
      select ${server}, now(), pid, datname, usename, application_name, backend_type, state, wait_event_type,
        wait_event, query, xact_start, query_start, state_change,
        case when wait_event_type = 'Lock' then pg_blocking_pids(pid) else '{}' end
      from pg_stat_activity
      where pid <> pg_backend_pid() and state is distinct from 'idle' and wait_event_type is distinct from 'Activity'
        and datname = current_database()`;
    await h.datastore.sql`create table contended (id int)`;
    const holder = postgres(h.database.url, { max: 1, onnotice: () => {} });
    const waiter = postgres(h.database.url, { max: 1, onnotice: () => {} });
    const alerter = h.alerter({ anomaly: false });
    try {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holding = holder.begin(async (tx) => {
        await tx`lock table contended in access exclusive mode`;
        locked();
        await released;
      });
      await isLocked;
      const waiting = waiter`select count(*) from contended`.execute();
      const until = Date.now() + 3_500;
      while (Date.now() < until) {
        await sample();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      h.clock.set(new Date());
      await alerter.evaluate();
      const [fired] = await h.datastore.sql<
        { connection_id: number; status: string; metric_value: number }[]
      >`
        select connection_id, status, metric_value from alerts where rule_id = ${rule}`;
      expect(fired).toMatchObject({ connection_id: server, status: "active" });
      expect(fired?.metric_value).toBeGreaterThan(2);
      expect(fired?.metric_value).toBeLessThan(10);

      release();
      await holding;
      await waiting;
      // The next ticks find both sessions idle: nothing stored; the evaluation after them clears.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await sample();
      h.clock.set(new Date(Date.now() + 4_000));
      await alerter.evaluate();
      const statuses = await h.datastore.sql<{ connection_id: number; status: string }[]>`
        select connection_id, status from alerts where rule_id = ${rule}`;
      expect(statuses).toEqual([{ connection_id: server, status: "cleared" }]);
    } finally {
      await holder.end();
      await waiter.end();
    }
  });
});
