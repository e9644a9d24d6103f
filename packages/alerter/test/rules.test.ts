import { builtInRules } from "@dbmon/datastore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, alertsOf, createHarness, type Harness } from "./support.js";

let h: Harness;
let connectionId: number;

beforeAll(async () => {
  h = await createHarness();
  connectionId = await addConnection(h.datastore, "db1");
  await createMetricTables(h.datastore.sql);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/** Inserts rows the way the collector stores a sample of each probe, at `at`. */
async function sample(at: Date, phase: "fire" | "clear"): Promise<void> {
  const sql = h.datastore.sql;
  const ts = at.toISOString();
  const prev = new Date(at.getTime() - 60_000).toISOString();
  const c = connectionId;
  const fire = phase === "fire";
  await sql`insert into metrics.pg_settings (connection_id, collected_at, name, setting)
    values (${c}, ${ts}, 'max_connections', ${fire ? "550" : "100"})`;
  // Client sessions: 450 when firing (six waiting on locks, long queries and transactions, one idle in a transaction).
  await sql`insert into metrics.pg_stat_activity (connection_id, collected_at, pid, backend_type, state, query_start, xact_start, state_change, wait_event_type)
    select ${c}, ${ts}::timestamptz, g, 'client backend',
      case when ${fire} and g = 1 then 'idle in transaction' when ${fire} and g <= 10 then 'active' else 'idle' end,
      case when ${fire} and g <= 10 then ${ts}::timestamptz - interval '2 hours' end,
      case when ${fire} and g <= 10 then ${ts}::timestamptz - interval '2 hours' end,
      case when ${fire} and g <= 10 then ${ts}::timestamptz - interval '1 hour' end,
      case when ${fire} and g between 2 and 8 then 'Lock' end
    from generate_series(1, ${fire ? 450 : 10}) g`;
  await sql`insert into metrics.pg_stat_replication (connection_id, collected_at, role, pid, sent_lsn, replay_lsn, receiver_status)
    values (${c}, ${ts}, 'primary', 100, '0/A0000000', ${fire ? "0/0" : "0/A0000000"}, null),
           (${c}, ${ts}, 'standby', 0, null, null, ${fire ? null : "streaming"})`;
  await sql`insert into metrics.pg_replication_slots (connection_id, collected_at, slot_name, active, retained_bytes)
    values (${c}, ${ts}, 'slot_a', ${!fire}, ${fire ? 20 * 1024 ** 3 : 0})`;
  await sql`insert into metrics.pg_node_role (connection_id, collected_at, subscription_count, active_subscription_count)
    values (${c}, ${ts}, 2, ${fire ? 1 : 2})`;
  await sql`insert into metrics.pg_sys_disk_info (connection_id, collected_at, mount_point, total_space, used_space)
    values (${c}, ${ts}, '/', 100, ${fire ? 97 : 10})`;
  await sql`insert into metrics.pg_sys_cpu_usage_info (connection_id, collected_at, processor_time_percent) values (${c}, ${ts}, ${fire ? 90 : 5})`;
  await sql`insert into metrics.pg_sys_memory_info (connection_id, collected_at, total_memory, used_memory) values (${c}, ${ts}, 100, ${fire ? 90 : 20})`;
  await sql`insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes) values (${c}, ${ts}, ${fire ? 6 : 0.5})`;
  await sql`insert into metrics.pg_database (connection_id, collected_at, datname, datallowconn, age_datfrozenxid)
    values (${c}, ${ts}, 'app', true, ${fire ? 180_000_000 : 1000})`;
  // Counters: a previous sample, then the current one (firing: increases past every threshold).
  if (fire) {
    await sql`insert into metrics.pg_stat_database (connection_id, database_name, collected_at, blks_hit, blks_read, temp_files, deadlocks)
      values (${c}, 'app', ${prev}, 0, 0, 0, 0), (${c}, 'app', ${ts}, 5000, 10000, 150, 2)`;
    await sql`insert into metrics.pg_stat_checkpointer (connection_id, collected_at, num_requested) values (${c}, ${prev}, 0), (${c}, ${ts}, 60)`;
    await sql`insert into metrics.pg_stat_wal (connection_id, collected_at, failed_count) values (${c}, ${prev}, 3), (${c}, ${ts}, 4)`;
  } else {
    await sql`insert into metrics.pg_stat_database (connection_id, database_name, collected_at, blks_hit, blks_read, temp_files, deadlocks)
      values (${c}, 'app', ${ts}, 30000, 10000, 150, 2)`;
    await sql`insert into metrics.pg_stat_checkpointer (connection_id, collected_at, num_requested) values (${c}, ${ts}, 60)`;
    await sql`insert into metrics.pg_stat_wal (connection_id, collected_at, failed_count) values (${c}, ${ts}, 4)`;
  }
  // When firing, past autovacuum's trigger for two hours already (the collection then included).
  const tableCollections = fire ? [new Date(at.getTime() - 2 * 3600_000).toISOString(), ts] : [ts];
  for (const collectedAt of tableCollections) {
    await sql`insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname, n_live_tup, n_dead_tup, last_autovacuum)
      values (${c}, 'app', ${collectedAt}, 'public', 'orders', 2000, ${fire ? 1500 : 0}, null)`;
  }
  await sql`insert into metrics.pg_stat_statements (connection_id, database_name, collected_at, queryid, mean_exec_time)
    select ${c}, 'app', ${ts}::timestamptz, g::text, ${fire ? 2000 : 5} from generate_series(1, 12) g`;
  if (fire) {
    await sql`insert into metrics.spock_exception_log (connection_id, database_name, collected_at, error_message)
      select ${c}, 'app', ${ts}::timestamptz, 'conflict' from generate_series(1, 12)`;
    await sql`insert into metrics.spock_resolutions (connection_id, database_name, collected_at, conflict_type)
      select ${c}, 'app', ${ts}::timestamptz, 'update_update' from generate_series(1, 30)`;
  }
  await sampleActivity(at, fire);
  await sql`insert into probe_runs (connection_id, probe_name, last_run_at)
    values (${c}, 'pg_connectivity', ${fire ? new Date(at.getTime() - 600_000).toISOString() : ts})
    on conflict (connection_id, probe_name) do update set last_run_at = excluded.last_run_at`;
}

/**
 * The activity sampler's rows of the five minutes up to `at` on a host of 2 vCPUs: firing, 3 active
 * sessions on average (load 1.5 per vCPU) and a session blocked by pid 4141 for the minute up to
 * the evaluation at every 1 s tick; otherwise 1 session, not blocked.
 */
async function sampleActivity(at: Date, fire: boolean): Promise<void> {
  const sql = h.datastore.sql;
  const ts = at.toISOString();
  await sql`insert into metrics.pg_sys_cpu_info (connection_id, collected_at, logical_processor, no_of_cores)
    values (${connectionId}, ${ts}, 2, 1)`;
  await sql`insert into metrics.activity_ticks (connection_id, minute, ticks)
    select ${connectionId}, m, 60
    from generate_series(date_trunc('minute', ${ts}::timestamptz) - interval '4 minutes', date_trunc('minute', ${ts}::timestamptz), interval '1 minute') m
    on conflict do nothing`;
  await sql`insert into metrics.activity_minutes (connection_id, minute, state, wait_event_type, samples)
    select ${connectionId}, m, 'active', '', ${fire ? 180 : 60}
    from generate_series(date_trunc('minute', ${ts}::timestamptz) - interval '4 minutes', date_trunc('minute', ${ts}::timestamptz), interval '1 minute') m
    on conflict do nothing`;
  await sql`insert into metrics.activity_samples (connection_id, sampled_at, pid, backend_type, state, wait_event_type,
      wait_event, query_start, blocking_pids)
    select ${connectionId}, ${h.clock.now().toISOString()}::timestamptz - make_interval(secs => g), 4242, 'client backend', 'active',
      ${fire ? "Lock" : null}, ${fire ? "relation" : null}, ${ts}::timestamptz - interval '2 minutes',
      ${fire ? [4141] : []}::int[]
    from generate_series(0, 60) g`;
}

describe("built-in rules", () => {
  it("every one of the 36 rules fires on violating data and clears when the data is back to normal", async () => {
    const alerter = h.alerter();
    const t0 = new Date();
    h.clock.set(t0);
    await sample(new Date(t0.getTime() - 30_000), "fire");
    await alerter.evaluate();
    const fired = await alertsOf(h.datastore);
    const active = new Set(
      (
        await h.datastore.sql<{ name: string }[]>`
        select r.name from alerts a join alert_rules r on r.id = a.rule_id where a.status = 'active'`
      ).map((r) => r.name),
    );
    const missing = builtInRules.map((r) => r.name).filter((name) => !active.has(name));
    expect(missing).toEqual([]);
    expect(fired.filter((a) => a.status === "active")).toHaveLength(36);
    const wraparound = await alertsOf(h.datastore, "transaction_wraparound");
    expect(wraparound[0]).toMatchObject({ database_name: "app", metric_value: 90, severity: "critical" });
    const bloat = await alertsOf(h.datastore, "table_bloat_ratio");
    expect(bloat[0]).toMatchObject({ object_name: "public.orders", database_name: "app", metric_value: 75 });

    // A second pass changes nothing: alerts are deduplicated.
    h.clock.advance(30);
    await alerter.evaluate();
    expect((await alertsOf(h.datastore)).length).toBe(fired.length);

    // Back to normal; spock's recent rows age out of their 5-minute window.
    h.clock.set(new Date(t0.getTime() + 400_000));
    await sample(new Date(t0.getTime() + 390_000), "clear");
    await alerter.evaluate();
    const after = await alertsOf(h.datastore);
    expect(after.filter((a) => a.status !== "cleared").map((a) => a.title)).toEqual([]);
    expect(after).toHaveLength(fired.length);
  });
});

describe("stale metrics", () => {
  it("follows the probe configuration: a longer interval or a disabled probe is not stale", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "stale-check");
    const sql = h.datastore.sql;
    const now = new Date();
    h.clock.set(now);
    // pg_database (default every 300 s) last ran 20 minutes ago: four intervals late.
    await sql`insert into probe_runs (connection_id, probe_name, last_run_at)
      values (${c}, 'pg_database', ${new Date(now.getTime() - 1_200_000).toISOString()})`;
    const staleOf = () => sql<{ status: string }[]>`
      select a.status from alerts a join alert_rules r on r.id = a.rule_id
      where r.name = 'metric_staleness' and a.connection_id = ${c} order by a.id`;
    await alerter.evaluate();
    expect((await staleOf()).map((alert) => alert.status)).toEqual(["active"]);

    // A server-scope override every 600 s: twice the interval, under the threshold of 3.
    await sql`insert into probe_configs (name, collection_interval_seconds, retention_days, scope, scope_id)
      values ('pg_database', 600, 7, 'server', ${c})`;
    h.clock.advance(1);
    await alerter.evaluate();
    expect((await staleOf()).map((alert) => alert.status)).toEqual(["cleared"]);

    // Disabled at server scope: never stale, however old its last run.
    await sql`update probe_configs set collection_interval_seconds = 60, is_enabled = false
      where scope = 'server' and scope_id = ${c}`;
    h.clock.advance(3600);
    await alerter.evaluate();
    expect((await staleOf()).map((alert) => alert.status)).toEqual(["cleared"]);
  });
});

describe("collected rows", () => {
  const statusOf = async (rule: string, c: number) =>
    (
      await h.datastore.sql<{ status: string; object_name: string | null; metric_value: number }[]>`
        select a.status, a.object_name, a.metric_value from alerts a join alert_rules r on r.id = a.rule_id
        where r.name = ${rule} and a.connection_id = ${c} order by a.id`
    ).map((alert) => [alert.status, alert.object_name, alert.metric_value]);

  it("CPU use is 100 − idle where processor_time_percent is null (system_stats on Linux, the local host)", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "linux-host");
    const sql = h.datastore.sql;
    const now = new Date();
    h.clock.set(now);
    await sql`insert into metrics.pg_sys_cpu_usage_info (connection_id, collected_at, processor_time_percent, idle_mode_percent)
      values (${c}, ${new Date(now.getTime() - 1000).toISOString()}, null, 7.5)`;
    await alerter.evaluate();
    expect(await statusOf("cpu_usage_high", c)).toEqual([["active", null, 92.5]]);

    h.clock.advance(60);
    await sql`insert into metrics.pg_sys_cpu_usage_info (connection_id, collected_at, processor_time_percent, idle_mode_percent)
      values (${c}, ${now.toISOString()}, null, 70)`;
    await alerter.evaluate();
    expect(await statusOf("cpu_usage_high", c)).toEqual([["cleared", null, 92.5]]);
  });

  it("autovacuum is overdue only past its own trigger, from pg_class.reltuples (-1 counts as 0)", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "new-database");
    const sql = h.datastore.sql;
    const now = new Date();
    h.clock.set(now);
    // A new database's catalog: statistics empty (n_live_tup 0), 200 dead tuples, but autovacuum
    // estimates 3,000 rows and waits for 50 + 0.2 × 3,000 = 650; a table never estimated (-1) waits
    // for 50 only. Collected two hours ago and now.
    for (const ago of [2 * 3600_000, 1000]) {
      const at = new Date(now.getTime() - ago).toISOString();
      await sql`insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname,
          n_live_tup, n_dead_tup, last_autovacuum, reltuples)
        values (${c}, 'app', ${at}, 'pg_catalog', 'pg_attribute', 0, 200, null, 3000),
               (${c}, 'app', ${at}, 'public', 'fresh', 0, 60, null, -1)`;
    }
    await alerter.evaluate();
    expect((await statusOf("autovacuum_not_running", c)).map(([status, object]) => [status, object])).toEqual(
      [["active", "public.fresh"]],
    );
  });

  it("a later run that found nothing supersedes the rows of the run before it", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "emptied");
    const sql = h.datastore.sql;
    const t0 = new Date();
    h.clock.set(t0);
    const first = new Date(t0.getTime() - 2000).toISOString();
    const recordRun = (probe: string, at: string) => sql`
      insert into probe_runs (connection_id, probe_name, last_run_at) values (${c}, ${probe}, ${at})
      on conflict (connection_id, probe_name) do update set last_run_at = excluded.last_run_at`;
    await sql`insert into metrics.pg_replication_slots (connection_id, collected_at, slot_name, active, retained_bytes)
      values (${c}, ${first}, 'forgotten', false, 0)`;
    await sql`insert into metrics.spock_exception_log (connection_id, database_name, collected_at, error_message)
      values (${c}, 'app', ${first}, 'conflict')`;
    await recordRun("pg_replication_slots", first);
    await recordRun("spock_exception_log", first);
    await alerter.evaluate();
    expect(await statusOf("replication_slot_inactive", c)).toEqual([["active", "forgotten", 1]]);
    expect(await statusOf("spock_recent_exceptions_present", c)).toEqual([["active", null, 1]]);

    // The slot was dropped and the exceptions left the probe's window: the next runs store no rows.
    const second = new Date(t0.getTime() - 1000).toISOString();
    await recordRun("pg_replication_slots", second);
    await recordRun("spock_exception_log", second);
    await alerter.evaluate();
    expect(await statusOf("replication_slot_inactive", c)).toEqual([["cleared", "forgotten", 1]]);
    expect(await statusOf("spock_recent_exceptions_present", c)).toEqual([["cleared", null, 1]]);
  });
});

describe("a server registered as several connections", () => {
  it("counts each database's transaction ID age once, under the connection that collects it", async () => {
    const sql = h.datastore.sql;
    const register = async (name: string, database: string) => {
      const [row] = await sql<{ id: number }[]>`
        insert into connections (name, host, port, database_name, username, owner_username)
        values (${name}, '127.0.0.1', 6543, ${database}, 'postgres', 'admin') returning id`;
      return row?.id ?? 0;
    };
    // The lowest id at the address also collects the databases nobody registered ("other").
    const first = await register("server-postgres", "postgres");
    const app = await register("server-app", "app");
    const t = new Date();
    h.clock.set(t);
    const at = new Date(t.getTime() - 30_000).toISOString();
    // Each connection lists every database of the server, as pg_database does.
    for (const connection of [first, app]) {
      await sql`insert into metrics.pg_database (connection_id, collected_at, datname, datallowconn, age_datfrozenxid)
        select ${connection}, ${at}, d, true, 180000000 from unnest(array['app', 'other', 'postgres']) d`;
      await sql`insert into metrics.pg_settings (connection_id, collected_at, name, setting)
        values (${connection}, ${at}, 'max_connections', '100')`;
    }
    await h.alerter().evaluate();
    const raised = await sql<{ connection_id: number; database_name: string }[]>`
      select a.connection_id, a.database_name from alerts a join alert_rules r on r.id = a.rule_id
      where r.name = 'transaction_wraparound' and a.connection_id = any(${[first, app]}::int[])
      order by a.connection_id, a.database_name`;
    expect(raised).toEqual([
      { connection_id: first, database_name: "other" },
      { connection_id: first, database_name: "postgres" },
      { connection_id: app, database_name: "app" },
    ]);
  });
});
