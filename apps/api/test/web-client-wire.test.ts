import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectUntil, monitorTestServer } from "./monitoring-support.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  withAlerter,
} from "./support.js";

/**
 * What the reference web client reads from dashboards and dialogs, on data the collector gathered
 * from the test server itself (issue 15, "wire gaps").
 */
describe("the reference web client's fields on real collected data", () => {
  let t: TestApp;
  let root: TestUser;
  let id: number;

  const get = async <T>(path: string): Promise<T> => {
    const res = await requestJson(t.app, path, { token: root.token });
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    id = await monitorTestServer(t, "root");
    const collected = async (probe: string) => {
      const [row] = await t.datastore.sql<{ found: boolean }[]>`
        select to_regclass(${`metrics.${probe}`}) is not null as found`;
      return Boolean(
        row?.found &&
          (
            await t.datastore.sql.unsafe(`select 1 from metrics.${probe} where connection_id = $1 limit 1`, [
              id,
            ])
          ).length,
      );
    };
    await collectUntil(
      t,
      id,
      async (info) =>
        info.system.disks.length > 0 &&
        info.system.cpu_model !== null &&
        info.key_settings.length > 0 &&
        (await collected("pg_node_role")) &&
        (await collected("pg_stat_database")),
    );
  });
  afterAll(() => t.close());

  it("names disk fields as the Server Info dialog reads them, with the collected values", async () => {
    const body = await get<{ system: { disks: Record<string, unknown>[] } }>(`/api/v1/server-info/${id}`);
    const stored = await t.datastore.sql<Record<string, unknown>[]>`
      select mount_point, file_system_type, total_space::float8 as total, used_space::float8 as used,
        free_space::float8 as free
      from metrics.pg_sys_disk_info
      where connection_id = ${id}
        and collected_at = (select max(collected_at) from metrics.pg_sys_disk_info where connection_id = ${id})
      order by mount_point collate "C"`;
    expect(body.system.disks).toEqual(
      stored.map((row) => ({
        mount_point: row.mount_point,
        filesystem_type: row.file_system_type,
        total_bytes: row.total,
        used_bytes: row.used,
        free_bytes: row.free,
      })),
    );
    expect(stored.some((row) => typeof row.total === "number" && row.total > 0)).toBe(true);
  });

  it("reports the CPU clock in hertz where the kernel knows it, virtual machines included", async () => {
    const kernelMhz = Math.max(
      0,
      ...(await readFile("/proc/cpuinfo", "utf8").catch(() => ""))
        .split("\n")
        .filter((line) => /^cpu MHz\s*:/.test(line))
        .map((line) => Number(line.split(":")[1])),
    );
    const body = await get<{ system: { cpu_clock_speed: number | null } }>(`/api/v1/server-info/${id}`);
    if (kernelMhz > 0) {
      expect(Number.isInteger(body.system.cpu_clock_speed)).toBe(true);
      // A clock in hertz (systeminformation's maximum or the kernel's figure), never MHz or GHz.
      expect(body.system.cpu_clock_speed as number).toBeGreaterThan(100_000_000);
    }
  });

  it("describes a fired alert in the timeline as the event detail panel reads it", async () => {
    await withAlerter(
      t,
      async (alerter) => {
        // Make a built-in rule fire on the collected max_connections.
        await alerter.evaluate();
        await t.datastore
          .sql`update alert_rules set default_threshold = 1 where name = 'high_max_connections'`;
        await alerter.evaluate();
      },
      { anomaly: false },
    );
    const [alert] = await t.datastore.sql<{ id: number; description: string; metric_value: number }[]>`
      select id::int as id, description, metric_value from alerts
      where connection_id = ${id} and metric_name = 'pg_settings.max_connections'`;
    expect(alert).toBeDefined();
    const start = new Date(Date.now() - 3600_000).toISOString();
    const end = new Date(Date.now() + 60_000).toISOString();
    const { events } = await get<{ events: Record<string, unknown>[] }>(
      `/api/v1/timeline/events?start_time=${start}&end_time=${end}&event_types=alert_fired&connection_id=${id}`,
    );
    const fired = events.find((event) => (event.details as { alert_id: unknown }).alert_id === alert?.id);
    expect(fired?.summary).toBe(alert?.description);
    expect(fired?.details).toEqual({
      alert_id: alert?.id,
      alert_type: "threshold",
      severity: "warning",
      status: "active",
      metric_name: "pg_settings.max_connections",
      metric_value: alert?.metric_value,
      metric_unit: "connections",
      threshold_value: 1,
      operator: ">",
      database_name: null,
      probe_name: expect.any(String),
    });
  });

  it("labels a standalone server by its assigned role, a detected role first", async () => {
    type Server = { id: number; primary_role: string };
    const serverIn = async () => {
      const groups = await get<{ clusters: { servers: Server[] }[] | null }[]>("/api/v1/clusters");
      const servers = groups.flatMap((group) => (group.clusters ?? []).flatMap((cluster) => cluster.servers));
      return servers.find((server) => server.id === id);
    };
    const [detected] = await t.datastore.sql<{ primary_role: string }[]>`
      select primary_role from metrics.pg_node_role where connection_id = ${id}
      order by collected_at desc limit 1`;
    expect(detected?.primary_role).toBe("standalone");
    expect((await serverIn())?.primary_role).toBe("standalone");
    await t.datastore.sql`update connections set role = 'primary' where id = ${id}`;
    expect((await serverIn())?.primary_role).toBe("primary");
  });

  it("gives the aggregate for one connection and a rate of 0 before a second sample", async () => {
    const summary = await get<{ aggregate?: Record<string, unknown> }>(
      `/api/v1/metrics/performance-summary?connection_id=${id}&time_range=1h`,
    );
    expect(Object.keys(summary.aggregate ?? {}).sort()).toEqual([
      "cache_hit_ratio",
      "commits_per_sec",
      "rollback_percent",
    ]);
    const { databases } = await get<{ databases: { database_name: string; transaction_rate: unknown }[] }>(
      `/api/v1/metrics/database-summaries?connection_id=${id}`,
    );
    expect(databases.length).toBeGreaterThan(0);
    const samples = await t.datastore.sql<{ datname: string; samples: number }[]>`
      select datname, count(distinct collected_at)::int as samples from metrics.pg_stat_database
      where connection_id = ${id} group by datname`;
    for (const database of databases) {
      expect(typeof database.transaction_rate).toBe("number");
      const sampled = samples.find((row) => row.datname === database.database_name)?.samples ?? 0;
      if (sampled < 2) {
        expect(database.transaction_rate).toBe(0);
      }
    }
    expect(samples.some((row) => row.samples < 2)).toBe(true);
  });
});
