import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, errorResponses, jsonResponse, message } from "../common.js";
import { tags } from "../tags.js";

const tag = [tags.metrics.name];

export const TIME_RANGES = ["1h", "6h", "24h", "7d", "30d"] as const;
export const AGGREGATIONS = ["avg", "sum", "min", "max", "last"] as const;
export const TOP_QUERY_ORDERS = [
  "total_exec_time",
  "calls",
  "mean_exec_time",
  "rows",
  "shared_blks_hit",
  "shared_blks_read",
] as const;

const integer = (invalid: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, message(invalid))
    .transform(Number)
    .openapi({ type: "integer" });

export const connectionIdQuery = () =>
  integer("Invalid connection_id").optional().openapi({ description: "A connection ID" });

export const connectionIdsQuery = () =>
  z
    .string()
    .regex(/^\s*\d{1,9}\s*(,\s*\d{1,9}\s*)*$/, message("Invalid connection_ids"))
    .transform((text) => [...new Set(text.split(",").map((part) => Number(part.trim())))])
    .optional()
    .openapi({ type: "string", description: "Comma-separated connection IDs; wins over connection_id" });

const probeNameQuery = () =>
  z
    .string()
    .regex(
      /^[A-Za-z_][A-Za-z0-9_]*$/,
      message("Invalid probe_name: must contain only letters, numbers, and underscores"),
    )
    .optional()
    .openapi({ description: "Probe name (required)", example: "pg_stat_database" });

export const timeRangeQuery = (fallback: (typeof TIME_RANGES)[number]) =>
  z
    .enum(TIME_RANGES, message("Invalid time_range: must be one of 1h, 6h, 24h, 7d, 30d"))
    .default(fallback)
    .openapi({ description: `Time range (default ${fallback})` });

const orderQuery = () =>
  z
    .enum(["asc", "desc"], message("Invalid order: must be asc or desc"))
    .optional()
    .openapi({ description: "asc or desc" });

const limitQuery = () =>
  z
    .string()
    .regex(/^0*[1-9]\d{0,8}$/, message("Invalid limit: must be a positive integer"))
    .transform(Number)
    .optional()
    .openapi({ type: "integer", description: "Maximum rows (at most 100)" });

const csv = (description: string) =>
  z
    .string()
    .transform((text) =>
      text
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .optional()
    .openapi({ type: "string", description });

const DataPointSchema = z.object({ time: z.string(), value: z.number() }).openapi("MetricDataPoint");

export const MetricSeriesSchema = z
  .object({
    name: z
      .string()
      .openapi({ description: "The metric, with ` (conn <id>)` when several connections are asked" }),
    metric: z.string(),
    data: z.array(DataPointSchema),
    unit: z.string(),
  })
  .openapi("MetricSeries");

export const queryMetrics = createRoute({
  method: "get",
  path: "/api/v1/metrics/query",
  operationId: "queryMetrics",
  summary: "Query metric data points",
  description:
    "Time-bucketed series of a probe's numeric columns, one per metric and connection. Buckets are " +
    "time_range/buckets wide (whole seconds); empty buckets repeat the last value (leading ones are omitted).",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({
      connection_id: connectionIdQuery(),
      connection_ids: connectionIdsQuery(),
      probe_name: probeNameQuery(),
      time_range: timeRangeQuery("1h"),
      buckets: z
        .string()
        .regex(/^\d{1,9}$/, message("Invalid buckets: must be between 1 and 500"))
        .transform(Number)
        .refine((value) => value >= 1 && value <= 500, message("Invalid buckets: must be between 1 and 500"))
        .optional()
        .openapi({ type: "integer", description: "Number of buckets, 1 to 500 (default 150)" }),
      aggregation: z
        .string()
        .transform((text) => text.toLowerCase())
        .pipe(z.enum(AGGREGATIONS, message("Invalid aggregation: must be one of avg, sum, min, max, last")))
        .optional()
        .openapi({ type: "string", description: "avg (default), sum, min, max or last; case-insensitive" }),
      metrics: csv("Comma-separated metric (column) names; default every numeric column"),
      database_name: z.string().optional(),
      schema_name: z.string().optional(),
      table_name: z.string().optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.array(MetricSeriesSchema), "Series"),
    ...errorResponses(400, 401, 403),
  },
});

export const BaselineSchema = z
  .object({
    metric: z.string().openapi({ description: "<probe>.<column>" }),
    mean: z.number(),
    stddev: z.number(),
    min: z.number(),
    max: z.number(),
    p50: z.number(),
    p95: z.number(),
    p99: z.number(),
    sample_count: z.number().int(),
  })
  .openapi("MetricBaseline");

export const getMetricBaselines = createRoute({
  method: "get",
  path: "/api/v1/metrics/baselines",
  operationId: "getMetricBaselines",
  summary: "Metric baseline values",
  description:
    "Statistics of each numeric column of the probe over the connection's last 7 days of collected data: " +
    "mean, population standard deviation, extremes and percentiles (continuous).",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({
      connection_id: connectionIdQuery(),
      probe_name: probeNameQuery(),
      metrics: csv("Comma-separated metric names (<probe>.<column>, or the column)"),
    }),
  },
  responses: {
    200: jsonResponse(z.array(BaselineSchema), "Baselines"),
    ...errorResponses(400, 401, 403),
  },
});

const TimeValueSchema = z.object({ time: z.string(), value: z.number() });

export const PerformanceSummarySchema = z
  .object({
    time_range: z.string(),
    connections: z.array(
      z.object({
        connection_id: z.number().int(),
        connection_name: z.string(),
        xid_age: z.array(z.object({ database_name: z.string(), age: z.number(), percent: z.number() })),
        cache_hit_ratio: z.object({ current: z.number().nullable(), time_series: z.array(TimeValueSchema) }),
        transactions: z.object({
          commits_per_sec: z.number().nullable(),
          rollback_percent: z.number().nullable(),
          time_series: z.array(
            z.object({ time: z.string(), commits_per_sec: z.number(), rollback_percent: z.number() }),
          ),
        }),
        checkpoints: z.object({
          time_series: z.array(
            z.object({ time: z.string(), write_time_ms: z.number(), sync_time_ms: z.number() }),
          ),
        }),
      }),
    ),
    aggregate: z
      .object({
        cache_hit_ratio: z.number().nullable(),
        commits_per_sec: z.number().nullable(),
        rollback_percent: z.number().nullable(),
      })
      .optional()
      .openapi({ description: "With more than one connection" }),
  })
  .openapi("PerformanceSummary");

export const getPerformanceSummary = createRoute({
  method: "get",
  path: "/api/v1/metrics/performance-summary",
  operationId: "getPerformanceSummary",
  summary: "Performance summary",
  description:
    "Transaction ID age, cache hit ratio, transaction rates and checkpoint times per connection. Ratios in percent.",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({
      connection_id: connectionIdQuery(),
      connection_ids: connectionIdsQuery(),
      time_range: timeRangeQuery("1h"),
    }),
  },
  responses: {
    200: jsonResponse(PerformanceSummarySchema, "Summary"),
    ...errorResponses(400, 401, 403),
  },
});

export const DatabaseSummariesSchema = z
  .object({
    connection_id: z.number().int(),
    time_range: z.string(),
    databases: z.array(
      z.object({
        database_name: z.string(),
        size_bytes: z.number().nullable(),
        size_pretty: z.string().nullable(),
        cache_hit_ratio: z.object({ current: z.number().nullable(), time_series: z.array(TimeValueSchema) }),
        transaction_rate: z.number().nullable().openapi({ description: "Commits per second" }),
        dead_tuple_ratio: z.number().nullable().openapi({ description: "Percent" }),
        active_connections: z.number().int().nullable(),
      }),
    ),
  })
  .openapi("DatabaseSummaries");

export const getDatabaseSummaries = createRoute({
  method: "get",
  path: "/api/v1/metrics/database-summaries",
  operationId: "getDatabaseSummaries",
  summary: "Database-level summaries",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({
      connection_id: connectionIdQuery(),
      connection_ids: connectionIdsQuery(),
      time_range: timeRangeQuery("24h"),
    }),
  },
  responses: {
    200: jsonResponse(DatabaseSummariesSchema, "Databases"),
    ...errorResponses(400, 401, 403),
  },
});

export const TopQuerySchema = z
  .object({
    queryid: z.string(),
    database_name: z.string(),
    query: z.string(),
    calls: z.number(),
    total_exec_time: z.number(),
    mean_exec_time: z.number(),
    rows: z.number(),
    shared_blks_hit: z.number(),
    shared_blks_read: z.number(),
  })
  .openapi("TopQuery");

export const getTopQueries = createRoute({
  method: "get",
  path: "/api/v1/metrics/top-queries",
  operationId: "getTopQueries",
  summary: "Top queries by resource usage",
  description: "From the latest pg_stat_statements collection of the connection, one row per queryid.",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({
      connection_id: connectionIdQuery(),
      limit: limitQuery(),
      order_by: z
        .enum(
          TOP_QUERY_ORDERS,
          message(
            "Invalid order_by: must be one of total_exec_time, calls, mean_exec_time, rows, shared_blks_hit, shared_blks_read",
          ),
        )
        .optional(),
      order: orderQuery(),
      queryid: z
        .string()
        .regex(/^-?\d{1,20}$/, message("Invalid queryid"))
        .optional(),
      exclude_collector: z
        .enum(["true", "false"], message("Invalid exclude_collector: must be true or false"))
        .optional()
        .openapi({ type: "boolean", description: "Leave out the collectors' own queries" }),
    }),
  },
  responses: {
    200: jsonResponse(z.array(TopQuerySchema), "Queries"),
    ...errorResponses(400, 401, 403),
  },
});

export const getLatestSnapshot = createRoute({
  method: "get",
  path: "/api/v1/metrics/latest",
  operationId: "getLatestSnapshot",
  summary: "Latest probe snapshot per entity",
  description:
    "The newest row of each entity (distinct text columns of the probe) collected in the last hour. " +
    "exclude_schemas (default pg_catalog, information_schema, pg_toast; `none` for none) applies to probes " +
    "with schemaname.",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({
      connection_id: connectionIdQuery(),
      probe_name: probeNameQuery(),
      database_name: z.string().optional(),
      exclude_schemas: csv("Comma-separated schemas to leave out, or none"),
      order_by: z.string().optional(),
      order: orderQuery(),
      limit: limitQuery(),
    }),
  },
  responses: {
    200: jsonResponse(
      z
        .object({ rows: z.array(z.record(z.string(), z.unknown())), total_count: z.number().int() })
        .openapi("LatestSnapshot"),
      "Rows",
    ),
    ...errorResponses(400, 401, 403),
  },
});

export const metricsRoutes = {
  queryMetrics,
  getMetricBaselines,
  getPerformanceSummary,
  getDatabaseSummaries,
  getTopQueries,
  getLatestSnapshot,
} as const;
