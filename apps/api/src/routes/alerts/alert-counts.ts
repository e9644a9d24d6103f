import { alertCounts } from "@dbmon/contract";
import { visibleConnectionFilter } from "../../alerting/scopes.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerAlertCounts(app: App): void {
  app.openapi(guarded(alertCounts, {}), async (c) => {
    const sql = c.get("services").datastore.sql;
    const visible = await visibleConnectionFilter(c.get("access"));
    const empty = { total: 0, by_server: {}, by_cluster: {}, counts: {} };
    if (visible && visible.length === 0) {
      return c.json(empty, 200);
    }
    const rows = await sql<
      { connection_id: number; cluster_id: number | null; severity: string; n: number }[]
    >`
      select a.connection_id, c.cluster_id, a.severity, count(*)::int as n
      from alerts a join connections c on c.id = a.connection_id
      where a.status = 'active' ${visible ? sql`and a.connection_id in ${sql(visible)}` : sql``}
      group by a.connection_id, c.cluster_id, a.severity`;
    const byServer: Record<string, number> = {};
    const byCluster: Record<string, number> = {};
    const counts: Record<string, { critical: number; warning: number; info: number }> = {};
    let total = 0;
    for (const row of rows) {
      const server = String(row.connection_id);
      total += row.n;
      byServer[server] = (byServer[server] ?? 0) + row.n;
      if (row.cluster_id !== null) {
        byCluster[String(row.cluster_id)] = (byCluster[String(row.cluster_id)] ?? 0) + row.n;
      }
      const entry = counts[server] ?? { critical: 0, warning: 0, info: 0 };
      counts[server] = entry;
      entry[row.severity as "critical" | "warning" | "info"] += row.n;
    }
    return c.json({ total, by_server: byServer, by_cluster: byCluster, counts }, 200);
  });
}
