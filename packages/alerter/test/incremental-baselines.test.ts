import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const FIVE_MINUTES = 5 * 60_000;

/**
 * Every baseline stored, in a stable order; not when it was last calculated (an update stores again
 * only the periods whose hours changed).
 */
const stored = () =>
  h.datastore.sql<Record<string, unknown>[]>`
    select connection_id, database_name, metric_name, object_name, period, period_value, time_zone, mean, stddev,
      min, max, sample_count, outlier_count, first_sample_at::text, last_sample_at::text
    from metric_baselines order by connection_id, database_name, metric_name, object_name, period, period_value`;

/** Rows of one collection at `at` for connection `c`: a gauge with an incident, a counter, sessions. */
async function collect(c: number, at: Date, step: number): Promise<void> {
  const sql = h.datastore.sql;
  const iso = at.toISOString();
  const incident = step >= 40 && step < 52;
  // Irrational-looking values so that float sums in another order would show.
  const load = (incident ? 9 : 1) + Math.sin(step * 0.7 + c) * 0.3;
  await sql`insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes)
    values (${c}, ${iso}, ${load})`;
  // A counter that resets once: increases across hour boundaries need the previous hour's collection.
  const deadlocks = step < 200 ? step * 3 + (step % 7) : step - 200;
  await sql`insert into metrics.pg_stat_database (connection_id, database_name, collected_at, deadlocks)
    values (${c}, 'app', ${iso}, ${deadlocks})`;
  await sql`insert into metrics.pg_stat_activity (connection_id, collected_at, pid, backend_type, state)
    select ${c}, ${iso}::timestamptz, g, 'client backend', 'idle' from generate_series(1, ${1 + (step % 5)}) g`;
}

describe("incremental baselines", () => {
  it("updated hour by hour equal a full recalculation from the collected history", async () => {
    const alerter = h.alerter({ anomaly: { lookbackDays: 1 } });
    const utc = await addConnection(h.datastore, "utc");
    const kolkata = await addConnection(h.datastore, "kolkata");
    // A half-hour offset splits each UTC hour between two local hours.
    await h.datastore.sql`
      insert into metrics.pg_settings (connection_id, collected_at, name, setting)
      values (${kolkata}, '2026-07-01T00:00:00Z', 'TimeZone', 'Asia/Kolkata'),
        (${kolkata}, '2026-07-01T00:00:00Z', 'max_connections', '100')`;

    // 40 hours of collections every 5 minutes, the window (one day) sliding over them. Each hourly
    // update runs 2 minutes into the hour; the collection of 5 minutes before it is stored only after
    // the update (a run that ended late).
    const start = new Date("2026-07-01T00:00:00Z").getTime();
    let late: [number, Date, number][] = [];
    let step = 0;
    for (let hour = 1; hour <= 40; hour += 1) {
      const updateAt = start + hour * 3600_000 + 2 * 60_000;
      for (; start + step * FIVE_MINUTES < updateAt; step += 1) {
        const at = new Date(start + step * FIVE_MINUTES);
        for (const c of [utc, kolkata]) {
          if (at.getTime() > updateAt - 10 * 60_000 && at.getTime() < updateAt - 2 * 60_000) {
            late.push([c, at, step]);
          } else {
            await collect(c, at, step);
          }
        }
      }
      h.clock.set(new Date(updateAt));
      expect(await alerter.calculateBaselines()).toBe(true);
      // Stored after the last update, a late collection would be in the full recalculation only.
      for (const [c, at, lateStep] of hour < 40 ? late : []) {
        await collect(c, at, lateStep);
      }
      late = [];
    }
    const incremental = await stored();
    expect(incremental.length).toBeGreaterThan(50);
    expect(new Set(incremental.map((row) => row.metric_name))).toEqual(
      new Set([
        "pg_sys_load_avg_info.load_avg_fifteen_minutes",
        "pg_stat_database.deadlocks_delta",
        "pg_stat_activity.count",
        "connection_utilization_percent",
        "pg_stat_activity.blocked_count",
      ]),
    );
    // Some updates recomputed only their last hours: partials of the first hours are gone.
    const [oldest] = await h.datastore.sql<{ oldest: string }[]>`
      select min(hour_start)::text as oldest from metric_baseline_hours`;
    expect(new Date(oldest?.oldest ?? "").toISOString()).toBe("2026-07-01T16:00:00.000Z");

    expect(await alerter.calculateBaselines({ full: true })).toBe(true);
    const full = await stored();
    expect(full).toHaveLength(incremental.length);
    full.forEach((row, i) => {
      const other = incremental[i] ?? {};
      for (const [key, value] of Object.entries(row)) {
        if (typeof value === "number" && !Number.isInteger(value)) {
          expect(other[key], `${String(row.metric_name)} ${key}`).toBeCloseTo(value, 9);
        } else {
          expect(other[key], `${String(row.metric_name)} ${key}`).toEqual(value);
        }
      }
    });
  }, 120_000);
});
