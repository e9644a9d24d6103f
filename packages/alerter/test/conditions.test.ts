import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, alertsOf, createHarness, type Harness, ruleId } from "./support.js";

let h: Harness;
let connectionId: number;

beforeAll(async () => {
  h = await createHarness();
  // The monitored server is the test server itself: the rows below are what the collector would store.
  connectionId = await addConnection(h.datastore, "local");
  await createMetricTables(h.datastore.sql);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/** Stores a pg_stat_activity sample of the test server, as the collector's probe does. */
async function sampleActivity(): Promise<void> {
  await h.datastore.sql`
    insert into metrics.pg_stat_activity (connection_id, collected_at, datname, pid, usename, application_name, backend_start,
      xact_start, query_start, state_change, wait_event_type, wait_event, state, query, backend_type)
    select ${connectionId}, ${h.clock.now().toISOString()}::timestamptz, datname, pid, usename::text, application_name,
      backend_start, xact_start, query_start, state_change, wait_event_type, wait_event, state, query, backend_type
    from pg_stat_activity where pid <> pg_backend_pid()`;
}

/** Stores a pg_stat_all_tables sample of the test database. */
async function sampleTables(): Promise<void> {
  await h.datastore.sql`select pg_stat_force_next_flush()`;
  await h.datastore.sql`
    insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname, n_live_tup,
      n_dead_tup, last_autovacuum)
    select ${connectionId}, current_database(), ${h.clock.now().toISOString()}::timestamptz, schemaname, relname,
      n_live_tup, n_dead_tup, last_autovacuum
    from pg_stat_all_tables`;
}

const tick = () => h.clock.set(new Date(Math.max(Date.now(), h.clock.now().getTime() + 1000)));

describe("real conditions on the test server", () => {
  it("blocked sessions behind a held lock fire blocked_queries (with a server override) and clear once released", async () => {
    const alerter = h.alerter();
    const rule = await ruleId(h.datastore, "blocked_queries");
    await h.datastore.sql`
      insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled)
      values (${rule}, 'server', ${connectionId}, '>=', 3, 'critical', true)`;
    await h.datastore.sql`create table locked_thing (id int)`;
    const holder = postgres(h.database.url, { max: 1, onnotice: () => {} });
    const waiters = postgres(h.database.url, { max: 4, onnotice: () => {} });
    try {
      const held = holder.begin(async (tx) => {
        await tx`lock table locked_thing in access exclusive mode`;
        await new Promise((resolve) => setTimeout(resolve, 1500));
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const blocked = Promise.all([1, 2, 3, 4].map(() => waiters`select count(*) from locked_thing`));
      await new Promise((resolve) => setTimeout(resolve, 400));
      tick();
      await sampleActivity();
      await alerter.evaluate();
      const [alert] = await alertsOf(h.datastore, "blocked_queries");
      expect(alert).toMatchObject({ status: "active", severity: "critical" });
      expect(alert?.metric_value).toBeGreaterThanOrEqual(4);
      await held;
      await blocked;
      tick();
      await sampleActivity();
      await alerter.evaluate();
      expect((await alertsOf(h.datastore, "blocked_queries"))[0]?.status).toBe("cleared");
    } finally {
      await holder.end();
      await waiters.end();
    }
  });

  it("dead tuples fire dead_tuple_ratio and table_bloat_ratio; VACUUM clears them", async () => {
    const alerter = h.alerter();
    // One session, so that its statistics are flushed before sampling.
    const session = postgres(h.database.url, { max: 1, onnotice: () => {} });
    await session`create table churn (id int, pad text) with (autovacuum_enabled = false)`;
    await session`insert into churn select g, repeat('x', 20) from generate_series(1, 3000) g`;
    await session`delete from churn where id <= 1500`;
    await session`select pg_stat_force_next_flush()`;
    await session`select 1`;
    tick();
    await sampleTables();
    await alerter.evaluate();
    const dead = (await alertsOf(h.datastore, "dead_tuple_ratio")).find(
      (a) => a.object_name === "public.churn",
    );
    expect(dead).toMatchObject({ status: "active", metric_value: 50 });
    const bloat = (await alertsOf(h.datastore, "table_bloat_ratio")).find(
      (a) => a.object_name === "public.churn",
    );
    expect(bloat).toMatchObject({ status: "active", metric_value: 100 });
    await session`vacuum churn`;
    await session`select pg_stat_force_next_flush()`;
    await session`select 1`;
    await session.end();
    tick();
    await sampleTables();
    await alerter.evaluate();
    expect(
      (await alertsOf(h.datastore, "dead_tuple_ratio")).find((a) => a.object_name === "public.churn")?.status,
    ).toBe("cleared");
    expect(
      (await alertsOf(h.datastore, "table_bloat_ratio")).find((a) => a.object_name === "public.churn")
        ?.status,
    ).toBe("cleared");
  });

  it("a server that cannot be reached raises one connection alert, updated and then cleared", async () => {
    const alerter = h.alerter();
    const stopped = await addConnection(h.datastore, "stopped");
    // What the collector records when the server refuses connections.
    await h.datastore
      .sql`update connections set connection_error = 'connection error: connect ECONNREFUSED 127.0.0.1:1' where id = ${stopped}`;
    tick();
    await alerter.evaluate();
    await alerter.evaluate();
    const open = await h.datastore
      .sql`select title, severity, status, description from alerts where alert_type = 'connection' and connection_id = ${stopped}`;
    expect(open).toEqual([
      {
        title: "Connection error: stopped",
        severity: "critical",
        status: "active",
        description: "connection error: connect ECONNREFUSED 127.0.0.1:1",
      },
    ]);
    await h.datastore
      .sql`update connections set connection_error = 'connection error: timeout' where id = ${stopped}`;
    await alerter.evaluate();
    const [updated] = await h.datastore
      .sql`select description from alerts where alert_type = 'connection' and connection_id = ${stopped}`;
    expect(updated?.description).toBe("connection error: timeout");
    await h.datastore.sql`update connections set connection_error = null where id = ${stopped}`;
    await alerter.evaluate();
    const [cleared] = await h.datastore
      .sql`select status from alerts where alert_type = 'connection' and connection_id = ${stopped}`;
    expect(cleared?.status).toBe("cleared");
  });
});

describe("lifecycle", () => {
  async function cpu(value: number): Promise<void> {
    await h.datastore.sql`
      insert into metrics.pg_sys_cpu_usage_info (connection_id, collected_at, processor_time_percent)
      values (${connectionId}, ${h.clock.now().toISOString()}, ${value})`;
  }
  const cpuAlerts = () => alertsOf(h.datastore, "cpu_usage_high");

  it("waits for the duration, respects blackouts, cools down and re-activates on a rising severity", async () => {
    const alerter = h.alerter();
    const rule = await ruleId(h.datastore, "cpu_usage_high");
    await h.datastore.sql`update alert_rules set default_duration_seconds = 120 where id = ${rule}`;
    h.clock.set(new Date(Date.now() + 3_600_000));
    await cpu(95);
    await alerter.evaluate();
    expect(await cpuAlerts()).toEqual([]);
    // A brief spike that ends does not page anyone.
    h.clock.advance(60);
    await cpu(10);
    await alerter.evaluate();
    h.clock.advance(60);
    await cpu(95);
    await alerter.evaluate();
    h.clock.advance(90);
    await cpu(95);
    await alerter.evaluate();
    expect(await cpuAlerts()).toEqual([]);
    h.clock.advance(60);
    await cpu(96);
    await alerter.evaluate();
    const [fired] = await cpuAlerts();
    expect(fired).toMatchObject({ status: "active", severity: "warning", metric_value: 96 });

    // Acknowledged, then the severity rises through a server override: active again, acknowledgement gone.
    await h.datastore.sql`update alerts set status = 'acknowledged' where id = ${fired?.id ?? 0}`;
    await h.datastore
      .sql`insert into alert_acknowledgments (alert_id, acknowledged_by) values (${fired?.id ?? 0}, 'dba')`;
    await h.datastore.sql`
      insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled)
      values (${rule}, 'server', ${connectionId}, '>', 80, 'critical', true)`;
    h.clock.advance(30);
    await cpu(97);
    await alerter.evaluate();
    const [reactivated] = await cpuAlerts();
    expect(reactivated).toMatchObject({ id: fired?.id, status: "active", severity: "critical" });
    const acks = await h.datastore
      .sql`select 1 from alert_acknowledgments where alert_id = ${fired?.id ?? 0}`;
    expect(acks).toHaveLength(0);

    // Back to normal: cleared. Violated again within the cooldown: nothing new.
    h.clock.advance(30);
    await cpu(10);
    await alerter.evaluate();
    expect((await cpuAlerts())[0]?.status).toBe("cleared");
    await h.datastore.sql`update alert_thresholds set duration_seconds = 0 where rule_id = ${rule}`;
    h.clock.advance(30);
    await cpu(99);
    await alerter.evaluate();
    expect(await cpuAlerts()).toHaveLength(1);

    // An active server blackout suppresses the new alert; stopping it lets the alert fire.
    const [blackout] = await h.datastore.sql<{ id: number }[]>`
      insert into blackouts (scope, connection_id, reason, start_time, end_time, created_by)
      values ('server', ${connectionId}, 'maintenance', ${h.clock.now().toISOString()}, ${new Date(h.clock.now().getTime() + 3_600_000).toISOString()}, 'dba')
      returning id::int as id`;
    h.clock.advance(400);
    await cpu(99);
    await alerter.evaluate();
    expect(await cpuAlerts()).toHaveLength(1);
    await h.datastore
      .sql`update blackouts set end_time = ${h.clock.now().toISOString()} where id = ${blackout?.id ?? 0}`;
    h.clock.advance(30);
    await cpu(99);
    await alerter.evaluate();
    const all = await cpuAlerts();
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ status: "active", severity: "critical" });

    // An override that disables the rule for the server clears it.
    await h.datastore.sql`update alert_thresholds set enabled = false where rule_id = ${rule}`;
    h.clock.advance(30);
    await cpu(99);
    await alerter.evaluate();
    expect((await cpuAlerts())[1]?.status).toBe("cleared");
  });
});
