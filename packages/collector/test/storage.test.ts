import { readServerInfo } from "@dbmon/datastore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CollectorLogger, type ProbeDefinition, probeRegistry } from "../src/index.js";
import {
  ensureMetricsTables,
  PartitionManager,
  recordRunWithoutRows,
  storeProbeRun,
  weekStart,
} from "../src/storage.js";
import { insertConnection, openTestEnvironment, type TestEnvironment } from "./support.js";

const sampleProbe: ProbeDefinition = {
  name: "test_samples",
  scope: "database",
  intervalSeconds: 60,
  retentionDays: 7,
  snapshot: false,
  columns: [
    { name: "label", type: "text" },
    { name: "amount", type: "integer" },
  ],
};

const configProbe: ProbeDefinition = {
  ...sampleProbe,
  name: "test_config",
  scope: "server",
  snapshot: true,
};

describe("metrics storage", () => {
  let env: TestEnvironment;
  let connectionId: number;
  const warnings: string[] = [];
  const logger: CollectorLogger = {
    debug() {},
    info() {},
    warn(_obj, msg) {
      warnings.push(msg ?? "");
    },
    error() {},
  };

  beforeAll(async () => {
    env = await openTestEnvironment();
    connectionId = await insertConnection(env, { database_name: "postgres" });
    await ensureMetricsTables(env.datastore.sql, [sampleProbe, configProbe, ...probeRegistry]);
  });

  afterAll(async () => {
    await env?.close();
  });

  it("creates weekly partitions ahead of need, Monday to Monday UTC", async () => {
    const partitions = new PartitionManager(env.datastore.sql, [sampleProbe]);
    const now = new Date("2026-11-22T01:00:00Z");
    await partitions.ensureAround(now);
    const rows = await env.datastore.sql<{ name: string; bound: string }[]>`
      select c.relname::text as name, pg_get_expr(c.relpartbound, c.oid) as bound
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'metrics.test_samples'::regclass order by c.relname`;
    expect(rows.map((row) => row.name)).toEqual(["test_samples_20261116", "test_samples_20261123"]);
    expect(rows[0]?.bound).toMatch(/FROM \('2026-11-16 00:00:00\+00'\) TO \('2026-11-23 00:00:00\+00'\)/);
    expect(weekStart(new Date("2026-11-16T00:00:00Z")).toISOString()).toBe("2026-11-16T00:00:00.000Z");
    expect(weekStart(new Date("2026-11-15T23:59:59Z")).toISOString()).toBe("2026-11-09T00:00:00.000Z");
  });

  it("stores a batch row by row when it fails, losing only the bad row", async () => {
    const partitions = new PartitionManager(env.datastore.sql, [sampleProbe]);
    const collectedAt = new Date();
    await partitions.ensureFor(sampleProbe, collectedAt);
    const rows = [
      { database_name: "a", label: "first", amount: 1 },
      { database_name: "a", label: "bad", amount: "not a number" },
      { database_name: "b", label: "third", amount: 3 },
    ];
    const result = await storeProbeRun(
      env.datastore.sql,
      logger,
      sampleProbe,
      connectionId,
      collectedAt,
      rows,
    );
    expect(result).toEqual({ stored: 2, failed: 1, unchanged: false, leaseLost: false });
    expect(warnings).toContain("a collected row could not be stored");
    const stored = await env.datastore.sql`
      select database_name, label, amount from metrics.test_samples where connection_id = ${connectionId}
      order by label`;
    expect(stored).toEqual([
      { database_name: "a", label: "first", amount: 1 },
      { database_name: "b", label: "third", amount: 3 },
    ]);
  });

  it("stores a collector's run only while the connection's lease names it", async () => {
    const sql = env.datastore.sql;
    const other = await insertConnection(env, { name: "leased", database_name: "postgres" });
    const partitions = new PartitionManager(sql, [sampleProbe]);
    const store = async (holder: string) => {
      const at = new Date();
      await partitions.ensureFor(sampleProbe, at);
      return storeProbeRun(
        sql,
        logger,
        sampleProbe,
        other,
        at,
        [{ database_name: "a", label: holder }],
        holder,
      );
    };
    const stored = async () =>
      (await sql`select 1 from metrics.test_samples where connection_id = ${other}`).length;
    const runs = async () => (await sql`select 1 from probe_runs where connection_id = ${other}`).length;

    expect(await store("nobody")).toMatchObject({ stored: 0, leaseLost: true });
    await sql`
      insert into collector_leases (connection_id, holder, acquired_at, expires_at)
      values (${other}, 'collector-a', now(), now() + interval '1 minute')`;
    expect(await store("collector-b")).toMatchObject({ stored: 0, leaseLost: true });
    expect([await stored(), await runs()]).toEqual([0, 0]);
    expect(await store("collector-a")).toMatchObject({ stored: 1, leaseLost: false });
    // Lapsed but taken by no one: still A's. Taken over by B: A stores nothing more.
    await sql`update collector_leases set expires_at = now() - interval '1 second' where connection_id = ${other}`;
    expect(await store("collector-a")).toMatchObject({ stored: 1, leaseLost: false });
    await sql`update collector_leases set holder = 'collector-b' where connection_id = ${other}`;
    expect(await store("collector-a")).toMatchObject({ stored: 0, leaseLost: true });
    expect([await stored(), await runs()]).toEqual([2, 1]);
  });

  it("records a run without rows only while the connection's lease names the collector", async () => {
    const sql = env.datastore.sql;
    const leased = await insertConnection(env, { name: "without rows", database_name: "postgres" });
    const partitions = new PartitionManager(sql, [sampleProbe]);
    const record = (holder: string, at: Date) =>
      recordRunWithoutRows({ sql, logger, partitions, leaseHolder: holder }, sampleProbe, leased, at);
    const lastRun = async () =>
      (
        await sql<{ at: number }[]>`
          select extract(epoch from last_run_at)::float8 as at from probe_runs
          where connection_id = ${leased} and probe_name = ${sampleProbe.name}`
      ).map((row) => new Date(row.at * 1000).toISOString());
    await sql`
      insert into collector_leases (connection_id, holder, acquired_at, expires_at)
      values (${leased}, 'collector-a', now(), now() + interval '1 minute')`;
    await record("collector-b", new Date("2026-01-01T00:00:00Z"));
    expect(await lastRun()).toEqual([]);
    await record("collector-a", new Date("2026-01-01T00:01:00Z"));
    await record("collector-a", new Date("2026-01-01T00:02:00Z"));
    expect(await lastRun()).toEqual(["2026-01-01T00:02:00.000Z"]);
    // Nothing is stored in the probe's table.
    expect(await sql`select 1 from metrics.test_samples where connection_id = ${leased}`).toHaveLength(0);
  });

  it("stores a snapshot only when its content differs from the last one", async () => {
    const partitions = new PartitionManager(env.datastore.sql, [configProbe]);
    const store = async (at: Date, rows: { label: string; amount: number }[]) => {
      await partitions.ensureFor(configProbe, at);
      return storeProbeRun(env.datastore.sql, logger, configProbe, connectionId, at, rows);
    };
    const base = Date.now();
    const first = [
      { label: "x", amount: 1 },
      { label: "y", amount: 2 },
    ];
    expect((await store(new Date(base), first)).unchanged).toBe(false);
    expect((await store(new Date(base + 1000), [...first])).unchanged).toBe(true);
    expect(
      (
        await store(new Date(base + 2000), [
          { label: "x", amount: 1 },
          { label: "y", amount: 3 },
        ])
      ).stored,
    ).toBe(2);
    const [row] = await env.datastore.sql<{ snapshots: number; rows: number }[]>`
      select count(distinct collected_at)::int as snapshots, count(*)::int as rows
      from metrics.test_config where connection_id = ${connectionId}`;
    expect(row).toEqual({ snapshots: 2, rows: 4 });
  });

  it("an emptied snapshot reads as empty, not as the last non-empty one", async () => {
    const pgExtension = probeRegistry.find((probe) => probe.name === "pg_extension");
    if (!pgExtension) {
      throw new Error("pg_extension is not registered");
    }
    const partitions = new PartitionManager(env.datastore.sql, [pgExtension]);
    const at = new Date();
    await partitions.ensureAround(at);
    const extension = {
      database_name: "app",
      extname: "plpgsql",
      extversion: "1.0",
      extrelocatable: false,
      schema_name: "pg_catalog",
    };
    await storeProbeRun(env.datastore.sql, logger, pgExtension, connectionId, at, [extension]);
    expect((await readServerInfo(env.datastore, connectionId))?.extensions).toEqual([
      { name: "plpgsql", version: "1.0", schema: "pg_catalog", database: "app" },
    ]);
    await storeProbeRun(
      env.datastore.sql,
      logger,
      pgExtension,
      connectionId,
      new Date(at.getTime() + 1000),
      [],
    );
    expect((await readServerInfo(env.datastore, connectionId))?.extensions).toEqual([]);
  });
});
