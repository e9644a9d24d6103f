import {
  getDatabaseSummaries,
  getLatestSnapshot,
  getMetricBaselines,
  getPerformanceSummary,
  getTopQueries,
  queryMetrics,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addConnection, insertMetrics, prepareMetrics } from "./monitoring-support.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

const NOW = new Date("2026-11-20T12:00:00.000Z");
const MINUTE = 60_000;

describe("metrics endpoints", () => {
  let t: TestApp;
  let reader: TestUser;
  let stranger: TestUser;
  let a: number;
  let b: number;
  /** response_time_ms of connection a at each minute of the last 2 hours (minute i before NOW). */
  const responseTime = (i: number) => (i * 7) % 23;

  beforeAll(async () => {
    t = await buildTestApp({ clock: { now: () => NOW } });
    await createUser(t, "root", { superuser: true });
    reader = await createUser(t, "reader");
    stranger = await createUser(t, "stranger");
    a = await addConnection(t, "alpha", { owner: "reader" });
    b = await addConnection(t, "beta", { owner: "reader" });
    await prepareMetrics(t, NOW);
    const connectivity = [];
    for (let i = 1; i <= 120; i += 1) {
      connectivity.push({
        connection_id: a,
        collected_at: new Date(NOW.getTime() - i * MINUTE),
        response_time_ms: responseTime(i),
      });
      if (i % 2 === 0) {
        connectivity.push({
          connection_id: b,
          collected_at: new Date(NOW.getTime() - i * MINUTE),
          response_time_ms: 100 + i,
        });
      }
    }
    await insertMetrics(t, "pg_connectivity", connectivity);
    // Two databases, snapshots 5 minutes apart: 10 and 20 commits a second, 1 rollback per 9 commits.
    const stats = [];
    for (const [k, minutesAgo] of [
      [0, 15],
      [1, 10],
      [2, 5],
    ] as const) {
      for (const [db, factor] of [
        ["app", 1],
        ["other", 2],
      ] as const) {
        stats.push({
          connection_id: a,
          database_name: db,
          collected_at: new Date(NOW.getTime() - minutesAgo * MINUTE),
          datname: db,
          numbackends: 3 * factor,
          xact_commit: 1000 + k * 300 * 10 * factor,
          xact_rollback: k * 300 * factor,
          blks_hit: 900 * (k + 1) * factor,
          blks_read: 100 * (k + 1) * factor,
        });
      }
    }
    await insertMetrics(t, "pg_stat_database", stats);
    await insertMetrics(t, "pg_database", [
      {
        connection_id: a,
        collected_at: new Date(NOW.getTime() - 5 * MINUTE),
        datname: "app",
        datistemplate: false,
        age_datfrozenxid: 214748365,
        database_size_bytes: 10485760,
      },
      {
        connection_id: a,
        collected_at: new Date(NOW.getTime() - 5 * MINUTE),
        datname: "template1",
        datistemplate: true,
        age_datfrozenxid: 5,
        database_size_bytes: 1,
      },
    ]);
    await insertMetrics(t, "pg_stat_all_tables", [
      {
        connection_id: a,
        database_name: "app",
        collected_at: new Date(NOW.getTime() - 5 * MINUTE),
        schemaname: "public",
        relname: "orders",
        n_live_tup: 90,
        n_dead_tup: 10,
        seq_scan: 4,
        last_vacuum: "2026-11-20T10:00:00Z",
      },
      {
        connection_id: a,
        database_name: "app",
        collected_at: new Date(NOW.getTime() - 10 * MINUTE),
        schemaname: "public",
        relname: "orders",
        n_live_tup: 80,
        n_dead_tup: 20,
        seq_scan: 2,
        last_vacuum: null,
      },
      {
        connection_id: a,
        database_name: "app",
        collected_at: new Date(NOW.getTime() - 5 * MINUTE),
        schemaname: "public",
        relname: "items",
        n_live_tup: 10,
        n_dead_tup: 0,
        seq_scan: 9,
        last_vacuum: null,
      },
      {
        connection_id: a,
        database_name: "app",
        collected_at: new Date(NOW.getTime() - 5 * MINUTE),
        schemaname: "pg_catalog",
        relname: "pg_class",
        n_live_tup: 400,
        n_dead_tup: 0,
        seq_scan: 1,
        last_vacuum: null,
      },
    ]);
    const statement = (queryid: string, query: string, calls: number, total: number, minutesAgo: number) => ({
      connection_id: a,
      database_name: "app",
      collected_at: new Date(NOW.getTime() - minutesAgo * MINUTE),
      queryid,
      query,
      calls,
      total_exec_time: total,
      rows: calls,
      shared_blks_hit: 10,
      shared_blks_read: 1,
    });
    await insertMetrics(t, "pg_stat_statements", [
      statement("1", "select 1", 10, 5, 10),
      statement("1", "select 1", 20, 50, 5),
      statement("-2", "select * from orders", 5, 100, 5),
      statement("3", "/* dbmon collector: pg_settings */ select 1", 100, 1, 5),
    ]);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  const get = (path: string, token?: string) => requestJson(t.app, path, { token });
  const error = async (path: string, token = reader.token) => {
    const res = await get(path, token);
    return { status: res.status, body: await res.json() };
  };

  it("buckets a series exactly like a hand computation, with every aggregation", async () => {
    // 1 hour in 6 buckets of 600 s ending at NOW: bucket k holds minutes 60-10k ... 51-10k before NOW.
    const minutesOf = (k: number) => Array.from({ length: 10 }, (_, j) => 60 - 10 * k - j);
    const expected = {
      avg: (v: number[]) => v.reduce((x, y) => x + y, 0) / v.length,
      sum: (v: number[]) => v.reduce((x, y) => x + y, 0),
      min: (v: number[]) => Math.min(...v),
      max: (v: number[]) => Math.max(...v),
      last: (v: number[]) => v[v.length - 1] as number,
    };
    for (const [aggregation, compute] of Object.entries(expected)) {
      const body = await typedClient(t, reader.token).call(queryMetrics, {
        query: {
          connection_id: a,
          probe_name: "pg_connectivity",
          time_range: "1h",
          buckets: 6,
          aggregation: aggregation.toUpperCase(),
        },
      });
      expect(body).toHaveLength(1);
      expect(body[0]).toMatchObject({ name: "response_time_ms", metric: "response_time_ms", unit: "" });
      expect(body[0]?.data.map((point) => point.time)).toEqual(
        [0, 1, 2, 3, 4, 5].map((k) => new Date(NOW.getTime() - 3600_000 + k * 600_000).toISOString()),
      );
      // Minutes are listed oldest first within a bucket, so "last" is the newest.
      const values = [0, 1, 2, 3, 4, 5].map((k) => compute(minutesOf(k).map(responseTime)));
      for (const [k, point] of (body[0]?.data ?? []).entries()) {
        expect(point.value).toBeCloseTo(values[k] as number, 9);
      }
    }
  });

  it("names one series per connection, fills empty buckets forward and omits leading empties", async () => {
    const body = await typedClient(t, reader.token).call(queryMetrics, {
      query: {
        connection_ids: `${a},${b}`,
        probe_name: "pg_connectivity",
        time_range: "6h",
        buckets: 12,
        metrics: "response_time_ms",
      },
    });
    expect(body.map((series) => series.name)).toEqual([
      `response_time_ms (conn ${a})`,
      `response_time_ms (conn ${b})`,
    ]);
    // Data exists for the last 2 hours only: 4 of the 12 half-hour buckets.
    expect(body[0]?.data).toHaveLength(4);
    const beta = body[1]?.data ?? [];
    const lastBucket = Array.from({ length: 15 }, (_, j) => 30 - j * 2)
      .filter((i) => i >= 1)
      .map((i) => 100 + i);
    expect(beta.at(-1)?.value).toBeCloseTo(lastBucket.reduce((x, y) => x + y, 0) / lastBucket.length, 9);
  });

  it("answers the reference's 400s, 401 and 403 for /metrics/query", async () => {
    const q = "/api/v1/metrics/query";
    expect(await error(`${q}?probe_name=pg_connectivity`)).toEqual({
      status: 400,
      body: { error: "Either connection_id or connection_ids is required" },
    });
    expect((await error(`${q}?connection_id=${a}&probe_name=pg-stat`)).body).toEqual({
      error: "Invalid probe_name: must contain only letters, numbers, and underscores",
    });
    expect((await error(`${q}?connection_id=${a}&probe_name=pg_connectivity&time_range=2h`)).body).toEqual({
      error: "Invalid time_range: must be one of 1h, 6h, 24h, 7d, 30d",
    });
    for (const buckets of ["0", "501", "x"]) {
      expect(
        (await error(`${q}?connection_id=${a}&probe_name=pg_connectivity&buckets=${buckets}`)).body,
      ).toEqual({ error: "Invalid buckets: must be between 1 and 500" });
    }
    expect(
      (await error(`${q}?connection_id=${a}&probe_name=pg_connectivity&aggregation=median`)).status,
    ).toBe(400);
    expect((await error(`${q}?connection_id=${a}`)).body).toEqual({ error: "probe_name is required" });
    expect((await error(`${q}?connection_id=abc&probe_name=x`)).body).toEqual({
      error: "Invalid connection_id",
    });
    expect((await error(`${q}?connection_ids=1,x&probe_name=x`)).body).toEqual({
      error: "Invalid connection_ids",
    });
    expect((await error(`${q}?connection_id=${a}&probe_name=no_such_probe`)).body).toEqual({
      error: 'probe "no_such_probe" not found',
    });
    expect((await error(`${q}?connection_id=${a}&probe_name=pg_connectivity&metrics=pid`)).body).toEqual({
      error: 'metric "pid" not found in probe "pg_connectivity"',
    });
    expect((await error(`${q}?connection_id=${a}&probe_name=pg_connectivity`, "")).status).toBe(401);
    expect(await error(`${q}?connection_id=${a}&probe_name=pg_connectivity`, stranger.token)).toEqual({
      status: 403,
      body: { error: `Permission denied: you do not have access to connection ${a}` },
    });
    // An unknown connection is 404 for everyone, before any access decision.
    expect(await error(`${q}?connection_ids=${a},999&probe_name=pg_connectivity`)).toEqual({
      status: 404,
      body: { error: "Connection not found" },
    });
  });

  it("computes baselines from the collected history", async () => {
    const [baseline] = await typedClient(t, reader.token).call(getMetricBaselines, {
      query: { connection_id: a, probe_name: "pg_connectivity" },
    });
    const values = Array.from({ length: 120 }, (_, k) => responseTime(k + 1)).sort((x, y) => x - y);
    const mean = values.reduce((x, y) => x + y, 0) / values.length;
    const stddev = Math.sqrt(values.reduce((x, y) => x + (y - mean) ** 2, 0) / values.length);
    const percentile = (p: number) => {
      const rank = p * (values.length - 1);
      const low = values[Math.floor(rank)] as number;
      return low + (rank - Math.floor(rank)) * ((values[Math.ceil(rank)] as number) - low);
    };
    expect(baseline).toEqual({
      metric: "pg_connectivity.response_time_ms",
      mean: expect.closeTo(mean, 9),
      stddev: expect.closeTo(stddev, 9),
      min: values[0],
      max: values.at(-1),
      p50: expect.closeTo(percentile(0.5), 9),
      p95: expect.closeTo(percentile(0.95), 9),
      p99: expect.closeTo(percentile(0.99), 9),
      sample_count: 120,
    });
    expect((await error(`/api/v1/metrics/baselines?probe_name=pg_connectivity`)).body).toEqual({
      error: "connection_id is required",
    });
    expect((await error(`/api/v1/metrics/baselines?connection_id=${a}`)).body).toEqual({
      error: "probe_name is required",
    });
    expect(
      (await error(`/api/v1/metrics/baselines?connection_id=${a}&probe_name=pg_connectivity`, stranger.token))
        .status,
    ).toBe(403);
    expect(
      await typedClient(t, reader.token).call(getMetricBaselines, {
        query: { connection_id: a, probe_name: "pg_connectivity", metrics: "pg_connectivity.other" },
      }),
    ).toEqual([]);
  });

  it("summarises performance: xid age, cache hit ratio, transaction rates", async () => {
    const body = await typedClient(t, reader.token).call(getPerformanceSummary, {
      query: { connection_ids: `${a},${b}`, time_range: "1h" },
    });
    expect(body.time_range).toBe("1h");
    const [alpha] = body.connections;
    if (!alpha) {
      throw new Error("no summary of alpha");
    }
    expect(alpha.connection_name).toBe("alpha");
    expect(alpha.xid_age).toEqual([{ database_name: "app", age: 214748365, percent: 10 }]);
    expect(alpha.cache_hit_ratio.current).toBe(90);
    // 3000 + 6000 commits and 300 + 600 rollbacks in 300 s: 30 a second, 9.1 % rollbacks.
    expect(alpha.transactions.commits_per_sec).toBe(30);
    expect(alpha.transactions.rollback_percent).toBe(9.1);
    expect(body.connections[1]).toMatchObject({
      connection_id: b,
      xid_age: [],
      cache_hit_ratio: { current: null, time_series: [] },
    });
    expect(body.aggregate).toEqual({ cache_hit_ratio: 90, commits_per_sec: 30, rollback_percent: 9.1 });
    expect((await error("/api/v1/metrics/performance-summary")).body).toEqual({
      error: "Either connection_id or connection_ids is required",
    });
    expect(
      (await error(`/api/v1/metrics/performance-summary?connection_id=${a}`, stranger.token)).status,
    ).toBe(403);
  });

  it("summarises each database", async () => {
    const { databases } = await typedClient(t, reader.token).call(getDatabaseSummaries, {
      query: { connection_id: a },
    });
    const app = databases.find((db) => db.database_name === "app");
    expect(app).toMatchObject({
      size_bytes: 10485760,
      size_pretty: "10 MB",
      transaction_rate: 10,
      // 10 dead of 510 tuples over all tables of the latest collection, catalogues included.
      dead_tuple_ratio: 1.96,
      active_connections: 3,
      cache_hit_ratio: { current: 90 },
    });
    expect(databases.find((db) => db.database_name === "other")).toMatchObject({
      transaction_rate: 20,
      size_bytes: null,
    });
    expect((await error(`/api/v1/metrics/database-summaries?connection_ids=${a},${b}`)).body).toEqual({
      error: "Exactly one connection_id is required",
    });
    expect(
      (await error(`/api/v1/metrics/database-summaries?connection_id=${a}`, stranger.token)).status,
    ).toBe(403);
  });

  it("lists top queries of the latest collection", async () => {
    const api = typedClient(t, reader.token);
    expect(await api.call(getTopQueries, { query: { connection_id: a, exclude_collector: true } })).toEqual([
      {
        queryid: "-2",
        database_name: "app",
        query: "select * from orders",
        calls: 5,
        total_exec_time: 100,
        mean_exec_time: 20,
        rows: 5,
        shared_blks_hit: 10,
        shared_blks_read: 1,
      },
      {
        queryid: "1",
        database_name: "app",
        query: "select 1",
        calls: 20,
        total_exec_time: 50,
        mean_exec_time: 2.5,
        rows: 20,
        shared_blks_hit: 10,
        shared_blks_read: 1,
      },
    ]);
    const byCalls = await api.call(getTopQueries, {
      query: { connection_id: a, order_by: "calls", limit: 1 },
    });
    expect(byCalls.map((row) => row.queryid)).toEqual(["3"]);
    expect(await api.call(getTopQueries, { query: { connection_id: a, queryid: "1" } })).toHaveLength(1);
    expect((await error(`/api/v1/metrics/top-queries?connection_id=${a}&order_by=query`)).body).toEqual({
      error:
        "Invalid order_by: must be one of total_exec_time, calls, mean_exec_time, rows, shared_blks_hit, shared_blks_read",
    });
    expect((await error(`/api/v1/metrics/top-queries?connection_id=${a}`, stranger.token)).status).toBe(403);
  });

  it("returns the latest row of each entity", async () => {
    const api = typedClient(t, reader.token);
    const tables = { connection_id: a, probe_name: "pg_stat_all_tables" };
    const body = await api.call(getLatestSnapshot, {
      query: { ...tables, order_by: "seq_scan", order: "desc" },
    });
    expect(body.total_count).toBe(2);
    expect(body.rows.map((row) => [row.relname, row.seq_scan, row.n_dead_tup])).toEqual([
      ["items", 9, 0],
      ["orders", 4, 10],
    ]);
    expect(body.rows[1]).toMatchObject({
      database_name: "app",
      schemaname: "public",
      last_vacuum: "2026-11-20T10:00:00+00:00",
    });
    expect(body.rows[1]).not.toHaveProperty("connection_id");
    const all = await api.call(getLatestSnapshot, {
      query: { ...tables, exclude_schemas: "none", limit: 500 },
    });
    expect(all.total_count).toBe(3);
    const l = "/api/v1/metrics/latest";
    expect((await error(`${l}?probe_name=x`)).body).toEqual({ error: "connection_id is required" });
    expect((await error(`${l}?connection_id=abc&probe_name=x`)).body).toEqual({
      error: "Invalid connection_id",
    });
    expect(
      (await error(`${l}?connection_id=${a}&probe_name=pg_stat_all_tables&order=sideways`)).body,
    ).toEqual({ error: "Invalid order: must be asc or desc" });
    expect((await error(`${l}?connection_id=${a}&probe_name=pg_stat_all_tables&limit=0`)).body).toEqual({
      error: "Invalid limit: must be a positive integer",
    });
    expect((await error(`${l}?connection_id=${a}&probe_name=nothing`)).body).toEqual({
      error: 'Probe "nothing" not found',
    });
    expect((await error(`${l}?connection_id=${a}&probe_name=pg_stat_all_tables&order_by=x`)).body).toEqual({
      error: 'Invalid order_by: column "x" does not exist in probe "pg_stat_all_tables" output',
    });
    expect(
      (await error(`${l}?connection_id=${a}&probe_name=pg_stat_all_tables`, stranger.token)).status,
    ).toBe(403);
    expect((await error(`${l}?connection_id=${a}&probe_name=pg_stat_all_tables`, "")).status).toBe(401);
  });
});
