import { getDatabaseSummaries } from "./get-database-summaries.js";
import { getLatestSnapshot } from "./get-latest-snapshot.js";
import { getMetricBaselines } from "./get-metric-baselines.js";
import { getPerformanceSummary } from "./get-performance-summary.js";
import { getTopQueries } from "./get-top-queries.js";
import { queryMetrics } from "./query-metrics.js";

export * from "./get-database-summaries.js";
export * from "./get-latest-snapshot.js";
export * from "./get-metric-baselines.js";
export * from "./get-performance-summary.js";
export * from "./get-top-queries.js";
export * from "./query-metrics.js";
export * from "./schemas.js";

export const metricsOperations = [
  queryMetrics,
  getMetricBaselines,
  getPerformanceSummary,
  getDatabaseSummaries,
  getTopQueries,
  getLatestSnapshot,
] as const;
