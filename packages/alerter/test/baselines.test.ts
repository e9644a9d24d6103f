import { createOutboundHostPolicy } from "@dbmon/monitoring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentAlerterLogger, startAlerter } from "../src/index.js";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, createHarness, type Harness } from "./support.js";

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  await createMetricTables(h.datastore.sql);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const LOAD = "pg_sys_load_avg_info.load_avg_fifteen_minutes";

/** Collected 15-minute load averages: [when, value]. */
async function collectLoad(connectionId: number, samples: [string, number][]): Promise<void> {
  await h.datastore.sql`
    insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes)
    select ${connectionId}, (s ->> 0)::timestamptz, (s ->> 1)::float8
    from jsonb_array_elements(${JSON.stringify(samples)}::jsonb) s`;
}

/** One sample every `minutes` from `from` (inclusive) to `to` (exclusive), valued by `value`. */
function every(minutes: number, from: string, to: string, value: (at: Date, index: number) => number) {
  const samples: [string, number][] = [];
  for (
    let at = new Date(from), i = 0;
    at < new Date(to);
    at = new Date(at.getTime() + minutes * 60_000), i += 1
  ) {
    samples.push([at.toISOString(), value(at, i)]);
  }
  return samples;
}

interface StoredBaseline {
  database_name: string;
  object_name: string;
  period: string;
  period_value: number;
  time_zone: string;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  sample_count: number;
  outlier_count: number;
  first_sample_at: string;
  last_sample_at: string;
  last_calculated: string;
}

const baselines = (connectionId: number, metric: string) =>
  h.datastore.sql<StoredBaseline[]>`
    select database_name, object_name, period, period_value, time_zone, mean, stddev, min, max, sample_count,
      outlier_count, first_sample_at, last_sample_at, last_calculated
    from metric_baselines where connection_id = ${connectionId} and metric_name = ${metric}
    order by period, period_value`;

/** A stored baseline's numbers, with ISO times, for exact comparison. */
const shape = (baseline: StoredBaseline | undefined) =>
  baseline && {
    ...baseline,
    first_sample_at: new Date(baseline.first_sample_at).toISOString(),
    last_sample_at: new Date(baseline.last_sample_at).toISOString(),
    last_calculated: new Date(baseline.last_calculated).toISOString(),
  };

const anomalies = (connectionId: number) =>
  h.datastore.sql<
    { status: string; anomaly_details: { baseline_period: string; baseline_period_value: number } }[]
  >`
    select status, anomaly_details from alerts where alert_type = 'anomaly' and connection_id = ${connectionId} order by id`;

describe("baselines from the collected history", () => {
  it("are each series' statistics over the lookback window, per hour of day and day of week, outliers left out", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "history");
    const sql = h.datastore.sql;
    await collectLoad(c, [
      ["2026-04-02T10:00:00Z", 50], // eight days before: outside the 7-day window
      ["2026-04-08T10:00:00Z", 1], // Wednesday
      ["2026-04-08T10:20:00Z", 2],
      ["2026-04-08T10:40:00Z", 3],
      ...[10, 11, 12].flatMap((hour): [string, number][] => [
        [`2026-04-09T${hour}:00:00Z`, 2], // Thursday
        [`2026-04-09T${hour}:20:00Z`, 3],
        [`2026-04-09T${hour}:40:00Z`, 4],
      ]),
      ["2026-04-09T15:00:00Z", 40], // an incident
    ]);
    // Counters: increases between samples, not across a reset (00:20) or a gap of hours (03:00).
    await sql`
      insert into metrics.pg_stat_database (connection_id, database_name, collected_at, deadlocks)
      values (${c}, 'app', '2026-04-09T00:00:00Z', 0), (${c}, 'app', '2026-04-09T00:05:00Z', 1),
        (${c}, 'app', '2026-04-09T00:10:00Z', 3), (${c}, 'app', '2026-04-09T00:15:00Z', 3),
        (${c}, 'app', '2026-04-09T00:20:00Z', 1), (${c}, 'app', '2026-04-09T03:00:00Z', 5),
        (${c}, 'app', '2026-04-09T03:05:00Z', 6)`;
    // Derived: sessions over the max_connections in force when they were counted (the first snapshot
    // also stands for the time before it).
    await sql`
      insert into metrics.pg_settings (connection_id, collected_at, name, setting)
      values (${c}, '2026-04-09T00:00:00Z', 'max_connections', '100'), (${c}, '2026-04-09T12:00:00Z', 'max_connections', '200')`;
    for (const [at, sessions] of [
      ["2026-04-08T23:00:00Z", 20],
      ["2026-04-09T06:00:00Z", 50],
      ["2026-04-09T18:00:00Z", 50],
    ] as const) {
      await sql`
        insert into metrics.pg_stat_activity (connection_id, collected_at, pid, backend_type, state)
        select ${c}, ${at}::timestamptz, g, 'client backend', 'idle' from generate_series(1, ${sessions}) g`;
    }
    h.clock.set(new Date("2026-04-10T12:00:00Z"));
    expect(await alerter.calculateBaselines()).toBe(true);

    const load = (await baselines(c, LOAD)).map(shape);
    const common = {
      database_name: "",
      object_name: "",
      time_zone: "UTC",
      last_calculated: "2026-04-10T12:00:00.000Z",
    };
    // Hourly means 2 (Wednesday), 3, 3, 3 and 40: their median is 3, their IQR 0 on the whole window
    // and 9.25 on Thursday, each hour's stddev 0.82, so the incident's hour is left out of both.
    const hour = (period_value: number, first: string, last: string) => ({
      ...common,
      period: "hour_of_day",
      period_value,
      mean: 3,
      stddev: expect.closeTo(Math.sqrt(2 / 3), 12),
      min: 2,
      max: 4,
      sample_count: 3,
      outlier_count: 0,
      first_sample_at: first,
      last_sample_at: last,
    });
    expect(load).toEqual([
      {
        ...common,
        period: "all",
        period_value: 0,
        mean: 2.75,
        stddev: expect.closeTo(Math.sqrt(10.25 / 12), 12),
        min: 1,
        max: 40,
        sample_count: 13,
        outlier_count: 1,
        first_sample_at: "2026-04-08T10:00:00.000Z",
        last_sample_at: "2026-04-09T15:00:00.000Z",
      },
      {
        ...common,
        period: "day_of_week",
        period_value: 3,
        mean: 2,
        stddev: expect.closeTo(Math.sqrt(2 / 3), 12),
        min: 1,
        max: 3,
        sample_count: 3,
        outlier_count: 0,
        first_sample_at: "2026-04-08T10:00:00.000Z",
        last_sample_at: "2026-04-08T10:40:00.000Z",
      },
      {
        ...common,
        period: "day_of_week",
        period_value: 4,
        mean: 3,
        stddev: expect.closeTo(Math.sqrt(2 / 3), 12),
        min: 2,
        max: 40,
        sample_count: 10,
        outlier_count: 1,
        first_sample_at: "2026-04-09T10:00:00.000Z",
        last_sample_at: "2026-04-09T15:00:00.000Z",
      },
      // 15:00 has one sample only: no baseline.
      {
        ...common,
        period: "hour_of_day",
        period_value: 10,
        mean: 2.5,
        stddev: expect.closeTo(Math.sqrt(5.5 / 6), 12),
        min: 1,
        max: 4,
        sample_count: 6,
        outlier_count: 0,
        first_sample_at: "2026-04-08T10:00:00.000Z",
        last_sample_at: "2026-04-09T10:40:00.000Z",
      },
      hour(11, "2026-04-09T11:00:00.000Z", "2026-04-09T11:40:00.000Z"),
      hour(12, "2026-04-09T12:00:00.000Z", "2026-04-09T12:40:00.000Z"),
    ]);

    // Increases 1, 2, 0 and (03:05) 1; the reset and the increase over the gap are not samples.
    const [deadlocks] = await baselines(c, "pg_stat_database.deadlocks_delta");
    expect(shape(deadlocks)).toMatchObject({
      database_name: "app",
      period: "all",
      mean: 1,
      stddev: expect.closeTo(Math.sqrt(0.5), 12),
      min: 0,
      max: 2,
      sample_count: 4,
      first_sample_at: "2026-04-09T00:05:00.000Z",
      last_sample_at: "2026-04-09T03:05:00.000Z",
    });
    // 20 of 100, 50 of 100, 50 of 200.
    const [utilization] = await baselines(c, "connection_utilization_percent");
    expect(utilization).toMatchObject({ period: "all", min: 20, max: 50, sample_count: 3 });
    expect(utilization?.mean).toBeCloseTo(95 / 3, 12);
    const [sessions] = await baselines(c, "pg_stat_activity.count");
    expect(sessions).toMatchObject({ period: "all", mean: 40, min: 20, max: 50, sample_count: 3 });
  });

  it("use the hour of day in the server's time zone: a nightly batch is quiet at night, not at noon", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "nightly");
    await h.datastore.sql`
      insert into metrics.pg_settings (connection_id, collected_at, name, setting)
      values (${c}, '2026-04-01T00:00:00Z', 'TimeZone', 'America/New_York')`;
    // Three days every 10 minutes: 1 ± 0.1, but 3.5 ± 0.1 from 02:00 to 03:00 in New York (06:00Z, EDT).
    await collectLoad(
      c,
      every(
        10,
        "2026-04-06T04:00:00Z",
        "2026-04-09T04:00:00Z",
        (at, i) => (at.getUTCHours() === 6 ? 3.5 : 1) + (i % 2 === 0 ? 0.1 : -0.1),
      ),
    );
    h.clock.set(new Date("2026-04-09T06:30:00Z")); // 02:30 in New York
    await collectLoad(c, [["2026-04-09T06:29:00Z", 3.5]]);
    await alerter.calculateBaselines();
    await alerter.evaluate();
    expect(await anomalies(c)).toEqual([]);
    const stored = await baselines(c, LOAD);
    const overall = stored.find((b) => b.period === "all");
    const night = stored.find((b) => b.period === "hour_of_day" && b.period_value === 2);
    // Complete hours only: the sample of 06:29 (this hour) is not in it.
    expect(night).toMatchObject({ time_zone: "America/New_York", sample_count: 18 });
    expect(night?.mean).toBeCloseTo(3.5, 1);
    // Against the whole window (where the batch's samples are outliers) the same value is far out.
    expect(overall?.outlier_count).toBe(18);
    expect((3.5 - (overall?.mean ?? 0)) / (overall?.stddev ?? 1) > 3).toBe(true);

    h.clock.set(new Date("2026-04-09T16:30:00Z")); // 12:30 in New York
    await collectLoad(c, [["2026-04-09T16:29:00Z", 3.5]]);
    await alerter.evaluate();
    const [alert] = await anomalies(c);
    expect(alert).toMatchObject({
      status: "active",
      anomaly_details: { baseline_period: "hour_of_day", baseline_period_value: 12 },
    });
  });

  it("need an hour on two days to make it a pattern: an incident's first hour stays anomalous", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "incident");
    // Since midnight 1 ± 0.1, and from noon 3.5: the noon hour's samples are all the incident's.
    await collectLoad(
      c,
      every(10, "2026-04-20T00:00:00Z", "2026-04-20T13:50:00Z", (at, i) =>
        at.getUTCHours() >= 12 ? 3.5 : 1 + (i % 2 === 0 ? 0.1 : -0.1),
      ),
    );
    h.clock.set(new Date("2026-04-20T13:50:00Z"));
    await alerter.calculateBaselines();
    expect(
      (await baselines(c, LOAD)).find((b) => b.period === "hour_of_day" && b.period_value === 12),
    ).toMatchObject({
      mean: 3.5,
      sample_count: 6,
    });
    await collectLoad(c, [["2026-04-20T13:50:00Z", 3.5]]);
    await alerter.evaluate();
    expect(await anomalies(c)).toMatchObject([
      { status: "active", anomaly_details: { baseline_period: "all" } },
    ]);
  });

  it("are recalculated from the history collected since, and dropped once a series has none in the window", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "growing");
    await collectLoad(
      c,
      every(10, "2026-05-01T00:00:00Z", "2026-05-01T02:00:00Z", (_, i) => (i % 2 ? 0.9 : 1.1)),
    );
    h.clock.set(new Date("2026-05-01T02:00:00Z"));
    await alerter.calculateBaselines();
    const [before] = await baselines(c, LOAD);
    expect(before).toMatchObject({ period: "all", mean: 1, sample_count: 12 });

    await collectLoad(
      c,
      every(10, "2026-05-01T02:00:00Z", "2026-05-01T04:00:00Z", (_, i) => (i % 2 ? 1.9 : 2.1)),
    );
    h.clock.set(new Date("2026-05-01T04:00:00Z"));
    await alerter.calculateBaselines();
    const [after] = await baselines(c, LOAD);
    expect(after).toMatchObject({ period: "all", sample_count: 24, outlier_count: 0, min: 0.9, max: 2.1 });
    expect(after?.mean).toBeCloseTo(1.5, 12);
    expect(new Date(after?.last_calculated ?? 0).toISOString()).toBe("2026-05-01T04:00:00.000Z");

    h.clock.set(new Date("2026-05-08T04:00:01Z"));
    await alerter.calculateBaselines();
    expect(await baselines(c, LOAD)).toEqual([]);
  });

  it("are not learned for worst-table metrics, whose series change name with the worst table", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "tables");
    // A table with dead tuples at every collection of two hours: dead_tuple_percent has values.
    await h.datastore.sql`
      insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname,
        n_live_tup, n_dead_tup, last_autovacuum)
      select ${c}, 'app', t, 'public', 'orders', 2000, 1000, null
      from generate_series('2026-05-20T00:00:00Z'::timestamptz, '2026-05-20T02:00:00Z', interval '5 minutes') t`;
    await collectLoad(
      c,
      every(10, "2026-05-20T00:00:00Z", "2026-05-20T02:00:00Z", () => 1),
    );
    h.clock.set(new Date("2026-05-20T02:00:00Z"));
    await alerter.calculateBaselines();
    expect(await baselines(c, LOAD)).not.toEqual([]);
    for (const metric of [
      "pg_stat_all_tables.dead_tuple_percent",
      "table_bloat_ratio",
      "table_last_autovacuum_hours",
    ]) {
      expect(await baselines(c, metric)).toEqual([]);
    }
  });

  it("are calculated when an alerter starts; one starting just after another leaves them be", async () => {
    const c = await addConnection(h.datastore, "started");
    await collectLoad(
      c,
      every(10, "2026-06-01T00:00:00Z", "2026-06-01T02:00:00Z", () => 1),
    );
    h.clock.set(new Date("2026-06-01T02:00:00Z"));
    const calculated: string[] = [];
    const start = (name: string) =>
      startAlerter({
        datastore: h.datastore,
        logger: {
          ...silentAlerterLogger,
          info: (_, message) => {
            if (message === "anomaly baselines calculated") {
              calculated.push(name);
            }
          },
        },
        secretKey: h.secretKey,
        clock: h.clock,
        hosts: createOutboundHostPolicy({ allowed: "127.0.0.1" }),
      });
    // Each start-up task begins on the next turn; stop() waits for the ones running.
    const startUp = async (name: string) => {
      const alerter = start(name);
      await new Promise((resolve) => setImmediate(resolve));
      await alerter.stop();
    };
    await startUp("first");
    expect((await baselines(c, LOAD))[0]).toMatchObject({ period: "all", sample_count: 12 });
    h.clock.advance(600);
    await startUp("second");
    expect(calculated).toEqual(["first"]);
  });

  it("are recalculated by one alerter at a time", async () => {
    const [first, second] = [h.alerter(), h.alerter()];
    const outcomes = await Promise.all([first.calculateBaselines(), second.calculateBaselines()]);
    expect(outcomes.sort()).toEqual([false, true]);
  });
});
