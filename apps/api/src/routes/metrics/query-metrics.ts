import { queryMetrics } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { catalogueProbe, probeTableExists, requestedMetrics } from "../../metrics/catalogue.js";
import { RANGE_SECONDS, requestedConnections, required, requireReadable } from "../../metrics/request.js";
import { querySeries } from "../../metrics/series.js";

export function registerQueryMetrics(app: App): void {
  app.openapi(guarded(queryMetrics, {}), async (c) => {
    const query = c.req.valid("query");
    const ids = requestedConnections(query);
    const probe = catalogueProbe(
      required(query.probe_name, "probe_name"),
      (name) => `probe "${name}" not found`,
    );
    const metrics = requestedMetrics(probe, query.metrics);
    await requireReadable(c.get("access"), ids);
    const { datastore, clock } = c.get("services");
    if (metrics.length === 0 || !(await probeTableExists(datastore.sql, probe))) {
      return c.json([], 200);
    }
    const series = await querySeries(datastore.sql, {
      probe,
      metrics,
      connectionIds: ids,
      rangeSeconds: RANGE_SECONDS[query.time_range],
      buckets: query.buckets ?? 150,
      aggregation: query.aggregation ?? "avg",
      now: clock.now(),
      databaseName: query.database_name,
      schemaName: query.schema_name,
      tableName: query.table_name,
    });
    return c.json(series, 200);
  });
}
