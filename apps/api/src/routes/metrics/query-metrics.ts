import { queryMetrics } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentSeries } from "../../metrics/present.js";
import { requestedConnections } from "../../metrics/request.js";

export const queryMetricsHandler = implement(queryMetrics, async (c) => {
  const query = c.req.valid("query");
  const series = await c.get("services").metrics.series(c.get("access"), {
    connectionIds: requestedConnections(query),
    probeName: query.probe_name,
    range: query.time_range,
    buckets: query.buckets ?? 150,
    aggregation: query.aggregation ?? "avg",
    metrics: query.metrics,
    databaseName: query.database_name,
    schemaName: query.schema_name,
    tableName: query.table_name,
  });
  return c.json(series.map(presentSeries), 200);
});
