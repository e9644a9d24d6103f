import { ensureMetricsTables, PartitionManager } from "@dbmon/collector";
import { queryMetrics } from "@dbmon/contract";
import { findProbeSpec, type ProbeSpec, rollUpMetrics, rollupTables } from "@dbmon/monitoring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addConnection, insertMetrics, prepareMetrics } from "./monitoring-support.js";
import { buildTestApp, createUser, type TestApp, type TestUser, typedClient } from "./support.js";

const NOW = new Date("2026-11-20T12:00:00.000Z");
const MINUTE = 60_000;
const DAYS = 3;
const probe = findProbeSpec("pg_connectivity") as ProbeSpec;

type Point = { time: string; value: number };

describe("metrics rollups", () => {
  let t: TestApp;
  let reader: TestUser;
  let a: number;

  beforeAll(async () => {
    t = await buildTestApp({ clock: { now: () => NOW } });
    reader = await createUser(t, "reader");
    a = await addConnection(t, "alpha", { owner: "reader" });
    await prepareMetrics(t, NOW);
    const rows = [];
    // Every minute for three days, irregular values (and a gap of an hour, which must stay a gap).
    for (let i = 1; i <= DAYS * 24 * 60; i += 1) {
      if (i < 600 || i > 660) {
        rows.push({
          connection_id: a,
          collected_at: new Date(NOW.getTime() - i * MINUTE + 7_000),
          response_time_ms: ((i * 7) % 23) + (i % 97) / 10,
        });
      }
    }
    await insertMetrics(t, "pg_connectivity", rows);
    await ensureMetricsTables(t.datastore.sql, rollupTables);
    const partitions = new PartitionManager(t.datastore.sql, rollupTables);
    // The first passes catch up a day of history each (from the probe's 7-day raw retention).
    for (let pass = 0; pass < 12; pass += 1) {
      await rollUpMetrics(t.datastore.sql, [probe], NOW, (table, at) => partitions.ensureFor(table, at));
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  const series = async (
    range: "1h" | "24h" | "7d",
    buckets: number,
    aggregation: string,
  ): Promise<Point[]> => {
    const [body] = await typedClient(t, reader.token).call(queryMetrics, {
      query: { connection_id: a, probe_name: "pg_connectivity", time_range: range, buckets, aggregation },
    });
    return body?.data ?? [];
  };

  /**
   * The raw aggregation "within the rollup's resolution": a row collected before the rollup is
   * complete counts in the bucket holding the start of its rollup bucket; later rows as they are.
   * Empty buckets repeat the last value and leading ones are left out, as the endpoint does.
   */
  const rawSeries = async (
    rangeSeconds: number,
    buckets: number,
    aggregation: string,
    resolution: number,
  ) => {
    const width = Math.floor(rangeSeconds / buckets);
    const end = NOW.getTime() / 1000;
    const start = end - width * buckets;
    const [progress] = await t.datastore.sql<{ through: number }[]>`
      select extract(epoch from rolled_through)::float8 as through from metric_rollup_progress
      where probe_name = 'pg_connectivity' and resolution_seconds = ${resolution}`;
    const through = progress?.through ?? 0;
    const value =
      aggregation === "last"
        ? "(array_agg(response_time_ms order by collected_at desc))[1]"
        : `${aggregation}(response_time_ms)`;
    const rows = await t.datastore.sql.unsafe<{ bucket: number; value: number }[]>(
      `select floor((case when extract(epoch from collected_at) < $4
                 then floor(extract(epoch from collected_at) / $5) * $5
                 else extract(epoch from collected_at) end - $2) / $3)::int as bucket,
         ${value}::float8 as value
       from metrics.pg_connectivity
       where connection_id = $1 and collected_at >= to_timestamp($2) and collected_at < to_timestamp($6)
       group by 1 order by 1`,
      [a, start, width, through, resolution, end],
    );
    const byBucket = new Map(rows.map((row) => [row.bucket, row.value]));
    const points: Point[] = [];
    let last: number | undefined;
    for (let bucket = 0; bucket < buckets; bucket += 1) {
      last = byBucket.get(bucket) ?? last;
      if (last !== undefined) {
        points.push({ time: new Date((start + bucket * width) * 1000).toISOString(), value: last });
      }
    }
    return points;
  };

  const expectClose = (actual: Point[], expected: Point[]) => {
    expect(actual.map((point) => point.time)).toEqual(expected.map((point) => point.time));
    actual.forEach((point, index) => {
      expect(point.value).toBeCloseTo(expected[index]?.value as number, 9);
    });
  };

  it("are written once per settled bucket, 5-minute and hourly", async () => {
    const counts = await t.datastore.sql<{ table: string; buckets: number; samples: number }[]>`
      select '5m' as table, count(*)::int as buckets, sum(sample_count)::int as samples
      from metrics.metric_rollups_5m where connection_id = ${a}
      union all
      select '1h', count(*)::int, sum(sample_count)::int from metrics.metric_rollups_1h where connection_id = ${a}`;
    // Rows up to 12:00 - 5 min settled for 5 minutes, up to 11:00 for hours; none twice.
    const before = (cutoffMinutes: number) =>
      Array.from({ length: DAYS * 24 * 60 }, (_, k) => k + 1).filter(
        (i) => (i < 600 || i > 660) && i > cutoffMinutes,
      ).length;
    expect(counts.find((row) => row.table === "5m")?.samples).toBe(before(5));
    expect(counts.find((row) => row.table === "1h")?.samples).toBe(before(60));
    expect(await rollUpMetrics(t.datastore.sql, [probe], NOW, async () => {})).toEqual({
      rows: 0,
      ran: true,
    });
  });

  it("answer like the raw rows when buckets are whole rollup buckets, with every aggregation", async () => {
    for (const aggregation of ["avg", "sum", "min", "max", "last"]) {
      // 168 hourly buckets: from the hourly rollups; 96 quarter-hours: from the 5-minute ones.
      expectClose(await series("7d", 168, aggregation), await rawSeries(7 * 86400, 168, aggregation, 3600));
      expectClose(await series("24h", 96, aggregation), await rawSeries(86400, 96, aggregation, 300));
    }
  });

  it("answer like the raw rows within the rollup's resolution when buckets are not aligned to it", async () => {
    for (const aggregation of ["avg", "max", "last"]) {
      expectClose(await series("7d", 150, aggregation), await rawSeries(7 * 86400, 150, aggregation, 3600));
      expectClose(await series("24h", 50, aggregation), await rawSeries(86400, 50, aggregation, 300));
    }
  });

  it("still answer once the raw rows are gone, and read raw rows finer than any rollup", async () => {
    const before = await series("7d", 168, "avg");
    const fine = await series("1h", 60, "avg");
    expect(fine).toHaveLength(60);
    await t.datastore
      .sql`delete from metrics.pg_connectivity where collected_at < ${new Date(NOW.getTime() - 2 * 3600_000).toISOString()}::timestamptz`;
    const after = await series("7d", 168, "avg");
    expectClose(after, before);
  });
});
