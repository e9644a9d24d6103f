import { resolveProbeConfig } from "@dbmon/datastore";
import { machinePostgresAvailable } from "@dbmon/datastore/testing";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dropExpiredPartitions,
  findProbe,
  type ProbeDefinition,
  type RunningCollector,
  startCollector,
} from "../src/index.js";
import { partitionWeek } from "../src/retention.js";
import { ensureMetricsTables, PartitionManager, storeProbeRun } from "../src/storage.js";
import {
  createMonitoredDatabase,
  insertConnection,
  MONITORED_SERVER_URL,
  type MonitoredDatabase,
  openTestEnvironment,
  quietLogger,
  type TestEnvironment,
  waitFor,
} from "./support.js";

// Monitors the machine's PostgreSQL 15 (CI has it); a machine with only Node.js skips this file.
const machinePostgres = await machinePostgresAvailable();

/**
 * A cheap probe counting its runs by rows stored, per connection (as `pg_settings`): a server-wide
 * probe would be stored once for the server both connections reach, whatever one of them disables.
 */
function tick(name: string, intervalSeconds: number, snapshot = false): ProbeDefinition {
  return {
    name,
    scope: "server",
    readsConnectedDatabase: true,
    intervalSeconds,
    retentionDays: 7,
    snapshot,
    columns: [{ name: "value", type: "integer" }],
    queries: [{ minVersion: 0, sql: "select 1 as value" }],
  };
}

describe.skipIf(!machinePostgres)("probe configuration", () => {
  let env: TestEnvironment;
  let monitored: MonitoredDatabase;
  let collector: RunningCollector;
  let first: number;
  let second: number;

  beforeAll(async () => {
    env = await openTestEnvironment();
    monitored = await createMonitoredDatabase(MONITORED_SERVER_URL);
    first = await insertConnection(env, { database_name: monitored.name, name: "first" });
    second = await insertConnection(env, { database_name: monitored.name, name: "second" });
  });

  afterAll(async () => {
    await collector?.stop();
    await monitored?.drop();
    await env?.close();
  });

  async function rows(probe: string, connectionId: number): Promise<number> {
    const [row] = await env.datastore.sql.unsafe<{ n: number }[]>(
      `select count(*)::int as n from metrics.${probe} where connection_id = $1`,
      [connectionId],
    );
    return row?.n ?? 0;
  }

  it("seeds the global defaults and follows overrides of every scope while running", async () => {
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      probes: [tick("tick_fast", 1), tick("tick_slow", 3600)],
      pollSeconds: 60,
    });
    const seeded = await env.datastore.sql<{ name: string; collection_interval_seconds: number }[]>`
      select name, collection_interval_seconds from probe_configs where scope = 'global' order by name`;
    // Active session sampling is seeded by every collector, beside the probes it is given.
    expect(seeded).toEqual([
      { name: "activity_sampling", collection_interval_seconds: 1 },
      { name: "tick_fast", collection_interval_seconds: 1 },
      { name: "tick_slow", collection_interval_seconds: 3600 },
    ]);
    await waitFor("a few fast runs", async () => ((await rows("tick_fast", first)) >= 2 ? true : undefined));
    expect(await rows("tick_slow", first)).toBe(1);

    // Disabling at server scope stops the probe on that connection only (the reference ignores it).
    await env.datastore.sql`
      insert into probe_configs (name, collection_interval_seconds, retention_days, is_enabled, scope, scope_id, user_modified)
      values ('tick_fast', 1, 7, false, 'server', ${first}, true)`;
    await new Promise((done) => setTimeout(done, 1500));
    const stoppedAt = await rows("tick_fast", first);
    const otherAt = await rows("tick_fast", second);
    await new Promise((done) => setTimeout(done, 2500));
    expect(await rows("tick_fast", first)).toBe(stoppedAt);
    expect(await rows("tick_fast", second)).toBeGreaterThan(otherAt);

    // A global change of interval reaches running schedules (through NOTIFY, before any poll).
    await env.datastore
      .sql`update probe_configs set collection_interval_seconds = 1 where name = 'tick_slow' and scope = 'global'`;
    await waitFor(
      "the slow probe to speed up",
      async () => ((await rows("tick_slow", second)) >= 3 ? true : undefined),
      10_000,
    );

    // Enabling again resumes at once.
    await env.datastore.sql`delete from probe_configs where scope = 'server' and scope_id = ${first}`;
    await waitFor(
      "the fast probe to resume",
      async () => ((await rows("tick_fast", first)) > stoppedAt ? true : undefined),
      5000,
    );
  }, 60_000);

  it("leaves out the system catalogs' tables and indexes where the probe configuration says so", async () => {
    const withTables = (sql: postgres.Sql) =>
      sql.unsafe(
        "create table orders (id int primary key, placed_at timestamptz); insert into orders values (1, now())",
      );
    const left = await createMonitoredDatabase(MONITORED_SERVER_URL, withTables);
    const kept = await createMonitoredDatabase(MONITORED_SERVER_URL, withTables);
    const { sql } = env.datastore;
    const leaving = await insertConnection(env, { database_name: left.name, name: "without catalogs" });
    const keeping = await insertConnection(env, { database_name: kept.name, name: "with catalogs" });
    const probes = ["pg_stat_all_tables", "pg_stat_all_indexes"].map(
      (name) => findProbe(name) as ProbeDefinition,
    );
    for (const probe of probes) {
      await sql`insert into probe_configs (name, collection_interval_seconds, retention_days, is_enabled,
          include_system_catalogs, scope, scope_id, user_modified)
        values (${probe.name}, 1, 7, true, false, 'server', ${leaving}, true)`;
    }
    await collector?.stop();
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      probes,
      intervalOverrides: { pg_stat_all_tables: 1, pg_stat_all_indexes: 1 },
      pollSeconds: 60,
    });
    try {
      // Seeded on: both probes list objects of every schema.
      expect(
        await sql`select name, include_system_catalogs from probe_configs
          where scope = 'global' and name like 'pg_stat_all_%' order by name`,
      ).toEqual([
        { name: "pg_stat_all_indexes", include_system_catalogs: true },
        { name: "pg_stat_all_tables", include_system_catalogs: true },
      ]);
      const schemas = async (probe: string, connectionId: number, database: string) => {
        const [found] = await sql.unsafe<{ runs: number; system: number; user: number }[]>(
          `select count(distinct collected_at)::int as runs,
             count(*) filter (where schemaname in ('pg_catalog', 'information_schema', 'pg_toast'))::int as system,
             count(*) filter (where schemaname = 'public')::int as user
           from metrics.${probe} where connection_id = $1 and database_name = $2`,
          [connectionId, database],
        );
        return found?.runs && found.runs >= 2 ? found : undefined;
      };
      for (const probe of probes) {
        const without = await waitFor(`${probe.name} without catalogs`, () =>
          schemas(probe.name, leaving, left.name),
        );
        expect(without.user).toBeGreaterThan(0);
        expect(without.system).toBe(0);
        const withThem = await waitFor(`${probe.name} with catalogs`, () =>
          schemas(probe.name, keeping, kept.name),
        );
        expect(withThem.user).toBeGreaterThan(0);
        expect(withThem.system).toBeGreaterThan(10 * withThem.runs);
      }
    } finally {
      await collector.stop();
      await left.drop();
      await kept.drop();
    }
  }, 60_000);

  it("resolves server over cluster over group over global", () => {
    const row = (scope: "global" | "group" | "cluster" | "server", scopeId: number, interval: number) => ({
      name: "p",
      scope,
      scope_id: scopeId,
      is_enabled: true,
      collection_interval_seconds: interval,
      retention_days: 7,
    });
    const rows = [row("global", 0, 60), row("group", 5, 50), row("cluster", 3, 40), row("server", 9, 30)];
    const placed = { clusterId: 3, groupId: 5 };
    expect(resolveProbeConfig(rows, 9, placed)?.collection_interval_seconds).toBe(30);
    expect(resolveProbeConfig(rows, 8, placed)?.collection_interval_seconds).toBe(40);
    expect(resolveProbeConfig(rows, 8, { clusterId: 4, groupId: 5 })?.collection_interval_seconds).toBe(50);
    expect(resolveProbeConfig(rows, 8, { clusterId: null, groupId: null })?.collection_interval_seconds).toBe(
      60,
    );
  });

  it("drops partitions past retention but keeps the newest snapshot of configuration probes", async () => {
    const series = tick("old_series", 60);
    const snapshots = tick("old_snapshots", 60, true);
    const probes = [series, snapshots];
    const { sql } = env.datastore;
    await ensureMetricsTables(sql, probes);
    const partitions = new PartitionManager(sql, probes);
    const now = new Date();
    const old = new Date(now.getTime() - 60 * 24 * 3600 * 1000);
    for (const probe of probes) {
      await partitions.ensureFor(probe, old);
      await partitions.ensureFor(probe, now);
      await storeProbeRun(sql, quietLogger, probe, first, old, [{ value: 1 }]);
    }
    await storeProbeRun(sql, quietLogger, series, first, now, [{ value: 2 }]);
    const dropped = await dropExpiredPartitions(sql, probes, now, quietLogger);
    expect(dropped).toHaveLength(1);
    expect(partitionWeek("old_series", dropped[0] as string)?.getTime()).toBeLessThan(old.getTime() + 1);
    expect(await rows("old_series", first)).toBe(1);
    expect(await rows("old_snapshots", first)).toBe(1);
  });
});
