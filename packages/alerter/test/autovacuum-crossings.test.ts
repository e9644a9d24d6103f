import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, alertsOf, createHarness, type Harness } from "./support.js";

const HOUR_MS = 3600 * 1000;

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  await createMetricTables(h.datastore.sql);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

interface TableStats {
  /** 1,000 rows: past the default trigger (50 + 0.2 × 1,000 = 250) above 250 dead tuples. */
  dead: number;
  vacuumedAt?: Date | null;
}

/** One collection of a database's table statistics, as the collector stores it. */
async function collect(connectionId: number, at: Date, tables: Record<string, TableStats>): Promise<void> {
  for (const [name, stats] of Object.entries(tables)) {
    await h.datastore.sql`
      insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname,
        n_live_tup, n_dead_tup, last_autovacuum, reltuples)
      values (${connectionId}, 'app', ${at.toISOString()}, 'public', ${name}, 1000, ${stats.dead},
        ${stats.vacuumedAt?.toISOString() ?? null}, 1000)`;
  }
}

/** Overdue alerts of the connection: object, status and hours. */
async function overdue(connectionId: number): Promise<[string | null, string, number | null][]> {
  const rows = await h.datastore.sql<
    { object_name: string | null; status: string; metric_value: number | null }[]
  >`
    select a.object_name, a.status, a.metric_value from alerts a join alert_rules r on r.id = a.rule_id
    where r.name = 'autovacuum_not_running' and a.connection_id = ${connectionId} order by a.object_name, a.id`;
  return rows.map((row) => [
    row.object_name,
    row.status,
    row.metric_value === null ? null : Math.round(row.metric_value * 100) / 100,
  ]);
}

// The rule fires above 1 hour.
describe("autovacuum_not_running counts from the table's first crossing of its trigger", () => {
  it("a never-vacuumed table fires only once it has been past its trigger longer than the threshold", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "crossings");
    const now = new Date();
    const at = (hours: number) => new Date(now.getTime() - hours * HOUR_MS);
    // Collections every 30 minutes for three hours: `old` past its trigger since 2 h ago, `recent`
    // since 30 minutes ago (below it before), `fresh` only in the latest one, `clean` never.
    for (const hours of [3, 2.5, 2, 1.5, 1, 0.5, 0]) {
      await collect(c, at(hours), {
        old: { dead: hours <= 2 ? 400 : 100 },
        recent: { dead: hours <= 0.5 ? 400 : 100 },
        fresh: { dead: hours === 0 ? 400 : 100 },
        clean: { dead: 10 },
      });
    }
    h.clock.set(now);
    await alerter.evaluate();
    // The worst table per database: `old`, two hours.
    expect(await overdue(c)).toEqual([["public.old", "active", 2]]);
    expect(await alertsOf(h.datastore, "autovacuum_not_running")).toHaveLength(1);

    // Later collections: `old` is vacuumed (and below its trigger), `recent` stays past it. Its crossing
    // is kept by the alerter from one evaluation to the next: 1.5 hours now.
    for (const minutes of [30, 60]) {
      await collect(c, new Date(now.getTime() + minutes * 60_000), {
        old: { dead: 0, vacuumedAt: new Date(now.getTime() + 10 * 60_000) },
        recent: { dead: 400 },
        fresh: { dead: 100 },
        clean: { dead: 10 },
      });
      h.clock.set(new Date(now.getTime() + minutes * 60_000 + 1000));
      await alerter.evaluate();
    }
    expect(await overdue(c)).toEqual([
      ["public.old", "cleared", 2],
      ["public.recent", "active", 1.5],
    ]);
    const crossings = await h.datastore.sql`
      select relation_name from autovacuum_crossings where connection_id = ${c} order by 1`;
    expect(crossings).toEqual([{ relation_name: "recent" }]);
  });

  it("a vacuum restarts the count, even when the table is past its trigger again at the next collection", async () => {
    const alerter = h.alerter({ cooldownSeconds: 0 });
    const c = await addConnection(h.datastore, "vacuumed");
    const now = new Date();
    const earlier = new Date(now.getTime() - 5 * HOUR_MS);
    await collect(c, new Date(now.getTime() - 3 * HOUR_MS), { busy: { dead: 400, vacuumedAt: earlier } });
    await collect(c, now, { busy: { dead: 400, vacuumedAt: earlier } });
    h.clock.set(now);
    await alerter.evaluate();
    expect(await overdue(c)).toEqual([["public.busy", "active", 3]]);

    // Vacuumed 10 minutes later, and dead tuples past the trigger again by the next collection.
    const next = new Date(now.getTime() + 30 * 60_000);
    await collect(c, next, { busy: { dead: 400, vacuumedAt: new Date(now.getTime() + 10 * 60_000) } });
    h.clock.set(next);
    await alerter.evaluate();
    expect(await overdue(c)).toEqual([["public.busy", "cleared", 3]]);
    const [crossing] = await h.datastore.sql<{ ms: number }[]>`
      select (extract(epoch from crossed_at) * 1000)::float8 as ms from autovacuum_crossings where connection_id = ${c}`;
    expect(crossing?.ms).toBe(next.getTime());

    // Two hours past the trigger since that vacuum: overdue again.
    const later = new Date(next.getTime() + 2 * HOUR_MS);
    await collect(c, later, { busy: { dead: 400, vacuumedAt: new Date(now.getTime() + 10 * 60_000) } });
    h.clock.set(later);
    await alerter.evaluate();
    expect(await overdue(c)).toEqual([
      ["public.busy", "cleared", 3],
      ["public.busy", "active", 2],
    ]);
  });

  it("an evaluation without a new collection keeps the crossings and the alert as they are", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "unchanged");
    const now = new Date();
    await collect(c, new Date(now.getTime() - 2 * HOUR_MS), { slow: { dead: 400 }, other: { dead: 10 } });
    await collect(c, now, { slow: { dead: 400 }, other: { dead: 10 } });
    h.clock.set(now);
    await alerter.evaluate();
    const crossings = () =>
      h.datastore
        .sql`select relation_name, crossed_at, vacuumed_at from autovacuum_crossings where connection_id = ${c}`;
    const before = await crossings();
    expect(before).toHaveLength(1);
    expect(await overdue(c)).toEqual([["public.slow", "active", 2]]);
    // Two more passes over the same collection (already synced: nothing of it is read again).
    for (const seconds of [60, 120]) {
      h.clock.set(new Date(now.getTime() + seconds * 1000));
      await alerter.evaluate();
    }
    expect(await crossings()).toEqual(before);
    expect(await overdue(c)).toEqual([["public.slow", "active", 2]]);
  });

  it("after collections no alerter followed, a crossing is traced back to the collection it happened at", async () => {
    const alerter = h.alerter();
    const c = await addConnection(h.datastore, "away");
    const start = new Date(Date.now() - 4 * HOUR_MS);
    const at = (hours: number) => new Date(start.getTime() + hours * HOUR_MS);
    await collect(c, at(0), { idle: { dead: 100 } });
    h.clock.set(at(0));
    await alerter.evaluate();
    // The alerters are away while the table crosses its trigger (at 1 h) and stays past it.
    for (const hours of [1, 2, 3]) {
      await collect(c, at(hours), { idle: { dead: 400 } });
    }
    h.clock.set(at(3));
    await alerter.evaluate();
    expect(await overdue(c)).toEqual([["public.idle", "active", 2]]);
  });
});
