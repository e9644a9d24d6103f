import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningAlerter } from "../src/index.js";
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

async function load(connectionId: number, value: number): Promise<void> {
  await h.datastore.sql`
    insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes)
    values (${connectionId}, ${h.clock.now().toISOString()}, ${value})`;
}

/** What the timers do, every step: baselines recalculated from the history so far, then an evaluation. */
async function step(alerter: RunningAlerter): Promise<void> {
  await alerter.calculateBaselines();
  await alerter.evaluate();
}

const anomalies = (connectionId: number) =>
  h.datastore.sql<
    { status: string; severity: string; title: string; anomaly_score: number; metric_name: string }[]
  >`
    select status, severity, title, anomaly_score, metric_name from alerts
    where alert_type = 'anomaly' and connection_id = ${connectionId} order by id`;

describe("tier-1 anomaly detection", () => {
  it("is quiet while warming up and on flat series, fires once on an outlier and clears when back in band", async () => {
    const alerter = h.alerter();
    const noisy = await addConnection(h.datastore, "noisy");
    const flat = await addConnection(h.datastore, "flat");
    const young = await addConnection(h.datastore, "young");
    h.clock.set(new Date("2026-05-01T00:00:00Z"));
    for (let i = 0; i < 40; i += 1) {
      await load(noisy, 2 + (i % 2 === 0 ? 0.2 : -0.2));
      await load(flat, 1);
      if (i >= 35) {
        await load(young, 1 + (i % 2) * 0.1);
      }
      await step(alerter);
      h.clock.advance(180);
    }
    expect(await anomalies(noisy)).toEqual([]);
    await load(noisy, 3.9); // still below the 4.0 threshold rule, far outside the band
    await load(flat, 1.02); // within the variance floor of a flat series
    await load(young, 3); // baseline still warming up
    await step(alerter);
    const [alert] = await anomalies(noisy);
    expect(alert).toMatchObject({
      status: "active",
      severity: "warning",
      title: "pg_sys_load_avg_info.load_avg_fifteen_minutes",
    });
    expect(alert?.anomaly_score).toBeGreaterThan(3);
    expect(await anomalies(flat)).toEqual([]);
    expect(await anomalies(young)).toEqual([]);

    h.clock.advance(180);
    await load(noisy, 3.8);
    await step(alerter);
    expect(await anomalies(noisy)).toHaveLength(1);
    const candidates = await h.datastore
      .sql`select processed from anomaly_candidates where connection_id = ${noisy}`;
    expect(candidates).toEqual([{ processed: true }]);
    const thresholds = await h.datastore.sql`select 1 from alerts where alert_type = 'threshold'`;
    expect(thresholds).toHaveLength(0);

    h.clock.advance(180);
    await load(noisy, 2.1);
    await step(alerter);
    expect((await anomalies(noisy))[0]?.status).toBe("cleared");
  }, 120_000); // 41 baseline updates of four statements per metric each
});
