import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, alertsOf, createHarness, type Harness } from "./support.js";

let h: Harness;
let connectionId: number;

beforeAll(async () => {
  h = await createHarness();
  connectionId = await addConnection(h.datastore, "db");
  await createMetricTables(h.datastore.sql);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const windows = () =>
  h.datastore.sql<{ start_time: string; end_time: string; created_by: string; reason: string }[]>`
    select start_time, end_time, created_by, reason from blackouts where schedule_id is not null order by start_time`;

describe("blackout schedules", () => {
  it("opens one window per cron instant in the schedule's time zone, across a DST change", async () => {
    const first = h.alerter();
    const second = h.alerter();
    await h.datastore.sql`
      insert into blackout_schedules (scope, name, cron_expression, duration_minutes, timezone, reason, created_by)
      values ('estate', 'nightly', '0 1 * * *', 30, 'Europe/Paris', 'backups', 'dba')`;
    // 01:00 in Paris: 00:00Z in winter (CET), 23:00Z the day before in summer (CEST, from 29 March 2026).
    const instants = ["2026-03-28T00:00:00Z", "2026-03-29T00:00:00Z", "2026-03-29T23:00:00Z"];
    for (const instant of instants) {
      h.clock.set(new Date(new Date(instant).getTime() - 30_000));
      await Promise.all([first.evaluate(), second.evaluate()]);
      h.clock.set(new Date(new Date(instant).getTime() + 20_000));
      await Promise.all([first.evaluate(), second.evaluate()]);
      h.clock.advance(60);
      await first.evaluate();
    }
    const opened = await windows();
    expect(opened.map((w) => new Date(w.start_time).toISOString())).toEqual(
      instants.map((i) => new Date(i).toISOString()),
    );
    expect(opened.map((w) => new Date(w.end_time).getTime() - new Date(w.start_time).getTime())).toEqual([
      1_800_000, 1_800_000, 1_800_000,
    ]);
    expect(opened[0]).toMatchObject({ created_by: "scheduler", reason: "Scheduled: nightly (backups)" });
  });

  it("a scheduled window suppresses new alerts while it lasts", async () => {
    const alerter = h.alerter();
    h.clock.set(new Date("2026-03-29T23:10:00Z"));
    await h.datastore.sql`
      insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes)
      values (${connectionId}, '2026-03-29T23:09:00Z', 9)`;
    await alerter.evaluate();
    expect(await alertsOf(h.datastore, "load_average_high")).toEqual([]);
    h.clock.set(new Date("2026-03-29T23:31:00Z"));
    await h.datastore.sql`
      insert into metrics.pg_sys_load_avg_info (connection_id, collected_at, load_avg_fifteen_minutes)
      values (${connectionId}, '2026-03-29T23:30:30Z', 9)`;
    await alerter.evaluate();
    expect((await alertsOf(h.datastore, "load_average_high"))[0]?.status).toBe("active");
  });
});
