import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, createHarness, type Harness, ruleId } from "./support.js";

let h: Harness;
/** Server S, reached by three connections (one per database), and server T, reached by one. */
let a: number;
let b: number;
let c: number;
let t: number;
const SERVER_S = 7001;

beforeAll(async () => {
  h = await createHarness();
  await createMetricTables(h.datastore.sql);
  a = await addConnection(h.datastore, "s-postgres", { port: SERVER_S });
  b = await addConnection(h.datastore, "s-app", { port: SERVER_S, database: "app" });
  c = await addConnection(h.datastore, "s-other", { port: SERVER_S, database: "other" });
  t = await addConnection(h.datastore, "t-postgres");
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/**
 * One collection on every connection there is, as the collector stores it today (server-wide rows under each
 * connection of a server): the host's memory, an inactive replication slot, a subscription worker
 * down in the connected database, and deadlocks in each connection's own database.
 */
async function collect(memoryPercent: number): Promise<void> {
  const sql = h.datastore.sql;
  const now = h.clock.now();
  const at = new Date(now.getTime() - 1000).toISOString();
  const before = new Date(now.getTime() - 61_000).toISOString();
  const connections = await sql<{ id: number; database_name: string }[]>`
    select id, database_name from connections order by id`;
  for (const { id, database_name: database } of connections) {
    await sql`insert into metrics.pg_sys_memory_info (connection_id, collected_at, total_memory, used_memory)
      values (${id}, ${at}, 100, ${memoryPercent})`;
    await sql`insert into metrics.pg_replication_slots (connection_id, collected_at, slot_name, active, retained_bytes)
      values (${id}, ${at}, 'slot_a', false, 0)`;
    await sql`insert into metrics.pg_node_role (connection_id, collected_at, subscription_count, active_subscription_count)
      values (${id}, ${at}, 2, 1)`;
    // A deadlock more at every collection (the first one compares with a collection a minute before).
    await sql`insert into metrics.pg_stat_database (connection_id, database_name, collected_at, deadlocks)
      select ${id}::int, ${database}::text, ${at}::timestamptz, ${collections + 1}::float8
      union all select ${id}::int, ${database}::text, ${before}::timestamptz, 0 where ${collections === 0}`;
  }
  collections += 1;
}

let collections = 0;

interface AlertRow {
  id: number;
  rule: string;
  connection_id: number;
  database_name: string | null;
  object_name: string | null;
  status: string;
  server_wide: boolean;
}

async function openAlerts(rule?: string): Promise<Omit<AlertRow, "id" | "status">[]> {
  const rows = await allAlerts(rule);
  return rows.filter((row) => row.status !== "cleared").map(({ id: _id, status: _status, ...rest }) => rest);
}

async function allAlerts(rule?: string): Promise<AlertRow[]> {
  const sql = h.datastore.sql;
  return sql<AlertRow[]>`
    select a.id::int as id, r.name as rule, a.connection_id, a.database_name, a.object_name, a.status, a.server_wide
    from alerts a join alert_rules r on r.id = a.rule_id
    where ${rule === undefined ? sql`true` : sql`r.name = ${rule}`}
    order by r.name, a.connection_id, a.database_name, a.id`;
}

describe("whole-server alerts", () => {
  it("N connections of one server raise one whole-server alert, under the lowest id; per-database and per-connection conditions stay theirs", async () => {
    const alerter = h.alerter();
    h.clock.set(new Date());
    await collect(95);
    await alerter.evaluate();
    const server = (connection_id: number, rule: string, object_name: string | null = null) => ({
      rule,
      connection_id,
      database_name: null,
      object_name,
      server_wide: true,
    });
    // The host's memory and the server's slot: once per server (S under a, its lowest id; T alone).
    expect(await openAlerts("memory_usage_high")).toEqual([
      server(a, "memory_usage_high"),
      server(t, "memory_usage_high"),
    ]);
    expect(await openAlerts("replication_slot_inactive")).toEqual([
      server(a, "replication_slot_inactive", "slot_a"),
      server(t, "replication_slot_inactive", "slot_a"),
    ]);
    // Each database's deadlocks: under the connection that collects it, one per database.
    expect(await openAlerts("deadlocks_detected")).toEqual(
      [
        [a, "postgres"],
        [b, "app"],
        [c, "other"],
        [t, "postgres"],
      ].map(([connection_id, database_name]) => ({
        rule: "deadlocks_detected",
        connection_id,
        database_name,
        object_name: null,
        server_wide: false,
      })),
    );
    // Subscriptions are the connected database's: one per connection.
    expect((await openAlerts("subscription_worker_down")).map((row) => row.connection_id)).toEqual([
      a,
      b,
      c,
      t,
    ]);
  });

  it("a server's alert moves to the next speaking connection and back, acknowledged and without notifications", async () => {
    const alerter = h.alerter();
    const sql = h.datastore.sql;
    await sql`insert into notification_channels (channel_type, name, endpoint_url, is_estate_default)
      values ('webhook', 'hook', 'http://127.0.0.1:9/hook', true)`;
    const [fired] = (await allAlerts("memory_usage_high")).filter((row) => row.connection_id === a);
    await sql`update alerts set status = 'acknowledged' where id = ${fired?.id ?? 0}`;
    await sql`insert into alert_acknowledgments (alert_id, acknowledged_by) values (${fired?.id ?? 0}, 'dba')`;
    const notifications = async () =>
      (await sql`select 1 from notification_history where alert_id = ${fired?.id ?? 0}`).length;

    // a is no longer monitored: b (the next lowest id) speaks for S and keeps the alert.
    await sql`update connections set is_monitored = false where id = ${a}`;
    h.clock.advance(60);
    await collect(95);
    await alerter.evaluate();
    const moved = (await allAlerts("memory_usage_high")).filter((row) => row.connection_id !== t);
    expect(moved).toEqual([
      {
        id: fired?.id,
        rule: "memory_usage_high",
        connection_id: b,
        database_name: null,
        object_name: null,
        status: "acknowledged",
        server_wide: true,
      },
    ]);
    expect((await openAlerts("replication_slot_inactive")).map((row) => row.connection_id)).toEqual([b, t]);
    // a's own per-database and per-connection alerts clear as every unmonitored connection's do.
    expect((await openAlerts("deadlocks_detected")).map((row) => row.connection_id)).toEqual([b, c, t]);

    // Monitored again: a speaks again, and the alert moves back.
    await sql`update connections set is_monitored = true where id = ${a}`;
    h.clock.advance(60);
    await collect(95);
    await alerter.evaluate();
    expect(
      (await allAlerts("memory_usage_high")).map((row) => [row.id, row.connection_id, row.status]),
    ).toEqual([
      [fired?.id, a, "acknowledged"],
      [expect.any(Number), t, "active"],
    ]);
    expect(await notifications()).toBe(0);
  });

  it("the speaking connection's overrides apply; a blackout of any connection of the server silences it", async () => {
    const alerter = h.alerter({ cooldownSeconds: 0 });
    const sql = h.datastore.sql;
    const rule = await ruleId(h.datastore, "memory_usage_high");
    const onS = async () =>
      (await openAlerts("memory_usage_high")).filter((row) => row.connection_id !== t).length;
    // An override on another connection of the server does not change the server's alert.
    await sql`insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled)
      values (${rule}, 'server', ${b}, '>', 99, 'warning', true)`;
    h.clock.advance(60);
    await collect(95);
    await alerter.evaluate();
    expect(await onS()).toBe(1);
    // The speaking connection's does: the alert clears.
    await sql`insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled)
      values (${rule}, 'server', ${a}, '>', 99, 'warning', true)`;
    h.clock.advance(60);
    await collect(95);
    await alerter.evaluate();
    expect(await onS()).toBe(0);
    await sql`delete from alert_thresholds where rule_id = ${rule}`;

    // Maintenance declared on c (not the speaker) keeps the server's alert from firing; T's fires.
    const now = h.clock.now().getTime();
    await sql`insert into blackouts (scope, connection_id, reason, start_time, end_time, created_by)
      values ('server', ${c}, 'upgrade', ${new Date(now - 1000).toISOString()}, ${new Date(now + 600_000).toISOString()}, 'dba')`;
    await sql`update alerts set status = 'cleared', cleared_at = ${h.clock.now().toISOString()} where connection_id = ${t}`;
    h.clock.advance(60);
    await collect(95);
    await alerter.evaluate();
    expect(await onS()).toBe(0);
    expect((await openAlerts("memory_usage_high")).map((row) => row.connection_id)).toEqual([t]);
    await sql`delete from blackouts`;
    h.clock.advance(60);
    await collect(95);
    await alerter.evaluate();
    expect(await onS()).toBe(1);
  });

  it("alerts kept once per connection before are made one: the speaker's stays, the others clear or move", async () => {
    const alerter = h.alerter();
    const sql = h.datastore.sql;
    const rule = await ruleId(h.datastore, "memory_usage_high");
    // As an alerter before this change left them: S's memory alert under b and c as well, and an
    // anomaly alert of a whole-server series only under c.
    const legacy = await sql<{ id: number }[]>`
      insert into alerts (alert_type, rule_id, connection_id, metric_name, severity, title, status)
      values ('threshold', ${rule}, ${b}, 'pg_sys_memory_info.used_percent', 'warning', 'memory_usage_high', 'active'),
             ('threshold', ${rule}, ${c}, 'pg_sys_memory_info.used_percent', 'warning', 'memory_usage_high', 'active'),
             ('anomaly', null, ${c}, 'pg_stat_activity.count', 'warning', 'pg_stat_activity.count', 'active')
      returning id::int as id`;
    h.clock.advance(60);
    await collect(95);
    await alerter.evaluate();
    const states = await sql<{ id: number; connection_id: number; status: string; server_wide: boolean }[]>`
      select id::int as id, connection_id, status, server_wide from alerts where id = any(${legacy.map((row) => row.id)}::bigint[])
      order by id`;
    expect(states).toEqual([
      { id: legacy[0]?.id, connection_id: b, status: "cleared", server_wide: false },
      { id: legacy[1]?.id, connection_id: c, status: "cleared", server_wide: false },
      { id: legacy[2]?.id, connection_id: a, status: "active", server_wide: true },
    ]);
    expect((await openAlerts("memory_usage_high")).map((row) => row.connection_id)).toEqual([a, t]);
  });

  it("when the speaking connection is deleted, its alerts go with it and the next one raises the server's", async () => {
    const alerter = h.alerter({ cooldownSeconds: 0 });
    const sql = h.datastore.sql;
    await sql`delete from connections where id = ${a}`;
    h.clock.advance(60);
    await collect(95);
    await alerter.evaluate();
    expect(await openAlerts("memory_usage_high")).toEqual([
      {
        rule: "memory_usage_high",
        connection_id: b,
        database_name: null,
        object_name: null,
        server_wide: true,
      },
      {
        rule: "memory_usage_high",
        connection_id: t,
        database_name: null,
        object_name: null,
        server_wide: true,
      },
    ]);
  });
});
