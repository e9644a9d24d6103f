import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricTables } from "./metric-tables.js";
import { addConnection, alertsOf, createHarness, type Harness, ruleId } from "./support.js";

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  await createMetricTables(h.datastore.sql);
  // Fixed ids, so the overrides and blackouts below can name them.
  await h.datastore
    .sql`insert into cluster_groups (id, name) overriding system value values (1001, 'production')`;
  await h.datastore.sql`insert into clusters (id, name, group_id) overriding system value
    values (10, 'orders', 1001), (11, 'billing', 1001)`;
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe("thresholds and blackouts through clusters and groups", () => {
  it("resolves server > cluster > group > default and honours cluster and group blackouts", async () => {
    const alerter = h.alerter();
    const inOrders = await addConnection(h.datastore, "orders-1");
    const inBilling = await addConnection(h.datastore, "billing-1");
    const standalone = await addConnection(h.datastore, "lonely");
    const pinned = await addConnection(h.datastore, "orders-2");
    await h.datastore.sql`update connections set cluster_id = 10 where id in (${inOrders}, ${pinned})`;
    await h.datastore.sql`update connections set cluster_id = 11 where id = ${inBilling}`;
    const rule = await ruleId(h.datastore, "memory_usage_high");
    await h.datastore.sql`
      insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled) values
        (${rule}, 'group', 1001, '>', 50, 'info', true),
        (${rule}, 'cluster', 10, '>', 60, 'critical', true),
        (${rule}, 'server', ${pinned}, '>', 95, 'warning', true)`;
    h.clock.set(new Date());
    for (const id of [inOrders, inBilling, standalone, pinned]) {
      await h.datastore.sql`
        insert into metrics.pg_sys_memory_info (connection_id, collected_at, total_memory, used_memory)
        values (${id}, ${h.clock.now().toISOString()}, 100, 70)`;
    }
    await alerter.evaluate();
    const bySeverity = await h.datastore.sql<
      { connection_id: number; severity: string; threshold_value: number }[]
    >`
      select a.connection_id, a.severity, a.threshold_value from alerts a where a.rule_id = ${rule} order by a.connection_id`;
    // orders-1: cluster 60 critical; billing-1: group 50 info; lonely: default 85 (no alert); orders-2: server 95 (no alert).
    expect(bySeverity).toEqual([
      { connection_id: inOrders, severity: "critical", threshold_value: 60 },
      { connection_id: inBilling, severity: "info", threshold_value: 50 },
    ]);

    // A group blackout suppresses new alerts in every cluster of the group; a cluster blackout only its own.
    await h.datastore
      .sql`update alert_thresholds set threshold = 10 where rule_id = ${rule} and scope = 'server'`;
    await h.datastore.sql`
      insert into blackouts (scope, cluster_id, reason, start_time, end_time, created_by)
      values ('cluster', 10, 'x', ${new Date(h.clock.now().getTime() - 1000).toISOString()}, ${new Date(h.clock.now().getTime() + 600_000).toISOString()}, 't')`;
    h.clock.advance(10);
    await alerter.evaluate();
    expect((await alertsOf(h.datastore, "memory_usage_high")).length).toBe(2);
    await h.datastore.sql`delete from blackouts`;
    h.clock.advance(10);
    await alerter.evaluate();
    expect((await alertsOf(h.datastore, "memory_usage_high")).length).toBe(3);
  });
});
