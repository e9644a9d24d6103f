import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writePass } from "../src/evaluate.js";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, addWebhookChannel, alertsOf, createHarness, type Harness } from "./support.js";

// A pass's writes reach the datastore in a few transactions whatever the number of conditions: each
// commit waits for a WAL flush, which on a busy datastore with fsync on is what made passes slow.
/** Databases with a table whose dead tuples fire dead_tuple_ratio: one condition each. */
const databases = 200;

let h: Harness;
let connectionId: number;

beforeAll(async () => {
  h = await createHarness();
  connectionId = await addConnection(h.datastore, "busy");
  await createMetricTables(h.datastore.sql);
  await addWebhookChannel(h, "http://127.0.0.1:9/hook");
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/** One collection of a table in each of `databases` databases, with the given share of dead tuples (percent). */
async function collectTables(deadPercent: number): Promise<void> {
  await h.datastore.sql`
    insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname, n_live_tup,
      n_dead_tup, last_autovacuum)
    select ${connectionId}, 'db' || g, ${h.clock.now().toISOString()}::timestamptz, 'public', 'orders',
      ${10_000 - deadPercent * 100}, ${deadPercent * 100}, ${h.clock.now().toISOString()}::timestamptz
    from generate_series(1, ${databases}) g`;
}

/**
 * The write transactions whose rows the alerting tables hold now: every row keeps the id of the
 * transaction that last wrote it (xmin), so one commit per row shows as one id per row.
 */
async function writeTransactions(): Promise<number> {
  const [row] = await h.datastore.sql<{ count: number }[]>`
    select count(distinct xid)::int as count from (
      select xmin::text as xid from alerts union all select xmin::text from alert_conditions
      union all select xmin::text from notification_history) written`;
  return row?.count ?? 0;
}

describe("writes of one evaluation pass", () => {
  it("fire, refresh and clear of many conditions each commit a few transactions, not one per condition", async () => {
    const alerter = h.alerter({ anomaly: false });
    const dead = () => alertsOf(h.datastore, "dead_tuple_ratio");

    await collectTables(50);
    await alerter.evaluate();
    expect((await dead()).filter((a) => a.status === "active")).toHaveLength(databases);
    const fired = await h.datastore
      .sql`select 1 from notification_history where notification_type = 'alert_fire'`;
    expect(fired.length).toBeGreaterThanOrEqual(databases);
    expect(await writeTransactions()).toBeLessThanOrEqual(3);

    h.clock.advance(60);
    await collectTables(60);
    await alerter.evaluate();
    expect((await dead()).every((a) => a.status === "active" && a.metric_value === 60)).toBe(true);
    const [refreshed] = await h.datastore.sql<{ count: number }[]>`
      select count(distinct xmin::text)::int as count from alerts where metric_value = 60`;
    expect(refreshed?.count).toBe(1);

    h.clock.advance(60);
    await collectTables(0);
    await alerter.evaluate();
    expect((await dead()).every((a) => a.status === "cleared")).toBe(true);
    const [cleared] = await h.datastore.sql<{ alerts: number; notifications: number }[]>`
      select (select count(distinct xmin::text)::int from alerts where status = 'cleared') as alerts,
        (select count(distinct xmin::text)::int from notification_history where notification_type = 'alert_clear') as notifications`;
    expect(cleared).toEqual({ alerts: 1, notifications: 1 });
  }, 120_000);

  it("anomalies of many servers fire and refresh in one transaction, and their reminders queue in one", async () => {
    const sql = h.datastore.sql;
    const servers: number[] = [];
    for (let index = 0; index < 30; index++) {
      servers.push(await addConnection(h.datastore, `anomalous ${index}`));
    }
    await sql`update notification_channels set reminder_enabled = true, reminder_interval_hours = 1`;
    // Baselines learn from complete hours.
    const hourStart = Math.floor(h.clock.now().getTime() / 3600_000) * 3600_000;
    // Two hours of a steady load (2 ± 0.2), then one far outside its band but under the threshold rule's 4.
    await sql`
      insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes)
      select id, to_timestamp(${hourStart / 1000}::float8 - 180 * g), 2 + case when g % 2 = 0 then 0.2 else -0.2 end
      from unnest(${servers}::int[]) id, generate_series(1, 40) g`;
    const alerter = h.alerter();
    await alerter.calculateBaselines({ full: true });
    const collect = (value: number) => sql`
      insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes)
      select id, ${h.clock.now().toISOString()}, ${value} from unnest(${servers}::int[]) id`;
    await collect(3.9);
    await alerter.evaluate();
    const anomalies = () => sql<{ id: number; xid: string; metric_value: number }[]>`
      select id::int as id, xmin::text as xid, metric_value from alerts
      where alert_type = 'anomaly' and status = 'active' and connection_id = any(${servers}::int[])`;
    const fired = await anomalies();
    expect(fired).toHaveLength(servers.length);
    const ids = fired.map((alert) => alert.id);
    const [written] = await sql<{ count: number }[]>`
      select count(distinct xid)::int as count from (
        select xmin::text as xid from alerts where id = any(${ids}::bigint[])
        union all select xmin::text from anomaly_candidates where alert_id = any(${ids}::bigint[])
        union all select xmin::text from notification_history where alert_id = any(${ids}::bigint[])) rows`;
    expect(written?.count).toBe(1);
    const [candidates] = await sql<{ count: number }[]>`
      select count(*)::int as count from anomaly_candidates where alert_id = any(${ids}::bigint[]) and processed`;
    expect(candidates?.count).toBe(servers.length);

    h.clock.advance(60);
    await collect(3.8);
    await alerter.evaluate();
    const refreshed = await anomalies();
    expect(refreshed.map((alert) => alert.id).sort()).toEqual([...ids].sort());
    expect(new Set(refreshed.map((alert) => alert.metric_value))).toEqual(new Set([3.8]));
    expect(new Set(refreshed.map((alert) => alert.xid)).size).toBe(1);

    h.clock.advance(3600);
    expect(await alerter.remind()).toBeGreaterThanOrEqual(servers.length);
    const reminders = await sql<{ xid: string; reminder_count: number }[]>`
      select xmin::text as xid, reminder_count from notification_history
      where notification_type = 'reminder' and alert_id = any(${ids}::bigint[])
      union all select xmin::text, reminder_count from notification_reminder_state where alert_id = any(${ids}::bigint[])`;
    expect(reminders).toHaveLength(2 * servers.length);
    expect(new Set(reminders.map((row) => row.xid)).size).toBe(1);
    expect(new Set(reminders.map((row) => row.reminder_count))).toEqual(new Set([1]));
    // Not due again before the channel's interval has passed since.
    expect(await alerter.remind()).toBe(0);
  }, 120_000);

  it("writes again when a deadlock with another alerter's pass aborted its transaction", async () => {
    const sql = h.datastore.sql;
    await sql`create table pass_rows (id int primary key)`;
    await sql`insert into pass_rows values (1), (2)`;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const other = postgres(h.database.url, { max: 1, onnotice: () => {} });
    try {
      // The other pass locks row 2 then row 1; this one row 1 then row 2, waiting first, so
      // PostgreSQL's deadlock check (after deadlock_timeout) aborts this one.
      const otherPass = other.begin(async (tx) => {
        await tx`update pass_rows set id = id where id = 2`;
        await sleep(500);
        await tx`update pass_rows set id = id where id = 1`;
      });
      let attempts = 0;
      await writePass(sql, async (tx) => {
        attempts++;
        await tx`update pass_rows set id = id where id = 1`;
        if (attempts === 1) {
          await sleep(100);
        }
        await tx`update pass_rows set id = id where id = 2`;
      });
      await otherPass;
      expect(attempts).toBe(2);
    } finally {
      await other.end();
    }
  }, 30_000);
});
