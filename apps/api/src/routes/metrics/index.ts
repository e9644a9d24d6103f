import { getDatabaseSummariesHandler } from "./get-database-summaries.js";
import { getLatestSnapshotHandler } from "./get-latest-snapshot.js";
import { getMetricBaselinesHandler } from "./get-metric-baselines.js";
import { getPerformanceSummaryHandler } from "./get-performance-summary.js";
import { getTopQueriesHandler } from "./get-top-queries.js";
import { queryMetricsHandler } from "./query-metrics.js";

export const metricsHandlers = [
  queryMetricsHandler,
  getMetricBaselinesHandler,
  getPerformanceSummaryHandler,
  getDatabaseSummariesHandler,
  getTopQueriesHandler,
  getLatestSnapshotHandler,
];
