import { z } from "@hono/zod-openapi";
import { commaListOpenApi, message, typedText } from "../common.js";

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

/** Who may read metrics: the services check read access to every connection asked for. */
export const metricsAccess = {
  note: "Read access to every connection asked for is required.",
} as const;

/** An integer in the query string (a number in typed callers' code); malformed is a 400 with `invalid`. */
const strictInt = (invalid: string, pattern = /^\d{1,9}$/) =>
  typedText<number, z.ZodType<number>>(z.string().regex(pattern, message(invalid)).transform(Number));

export const connectionIdQuery = () =>
  strictInt("Invalid connection_id").optional().openapi({ type: "integer", description: "A connection ID" });

export const connectionIdsQuery = () =>
  z
    .string()
    .regex(/^\s*\d{1,9}\s*(,\s*\d{1,9}\s*)*$/, message("Invalid connection_ids"))
    .transform((text) => [...new Set(text.split(",").map((part) => Number(part.trim())))])
    .optional()
    .openapi(
      commaListOpenApi(
        { type: "integer", minimum: 0 },
        "Connection IDs (comma-separated on the wire); win over connection_id",
      ),
    );

/** Operations that take `connection_id` or `connection_ids` need one of them (400 otherwise). */
export const oneConnectionChoice = [["connection_id", "connection_ids"]] as const;

/** The query of the summaries: the connections and the time range (default `fallback`). */
export const summaryQuery = (fallback: (typeof TIME_RANGES)[number]) =>
  z.object({
    connection_id: connectionIdQuery(),
    connection_ids: connectionIdsQuery(),
    time_range: timeRangeQuery(fallback),
  });

/** Required: a missing or empty name is a 400 "probe_name is required", as the API has always answered. */
export const probeNameQuery = () =>
  z
    .string(message("probe_name is required"))
    .min(1, message("probe_name is required"))
    .regex(
      /^[A-Za-z_][A-Za-z0-9_]*$/,
      message("Invalid probe_name: must contain only letters, numbers, and underscores"),
    )
    .openapi({ description: "Probe name", example: "pg_stat_database" });

/** A connection ID the operation needs: missing or empty is a 400 "connection_id is required". */
export const requiredConnectionIdQuery = () =>
  typedText<number, z.ZodType<number>>(
    z
      .string(message("connection_id is required"))
      .min(1, message("connection_id is required"))
      .regex(/^\d{1,9}$/, message("Invalid connection_id"))
      .transform(Number),
  ).openapi({ type: "integer", description: "A connection ID" });

/** The query of the reads of one probe on one connection; operations extend it with their own. */
export const probeQuery = () =>
  z.object({
    connection_id: requiredConnectionIdQuery(),
    probe_name: probeNameQuery(),
  });

export const timeRangeQuery = (fallback: (typeof TIME_RANGES)[number]) =>
  z
    .enum(TIME_RANGES, message("Invalid time_range: must be one of 1h, 6h, 24h, 7d, 30d"))
    .default(fallback)
    .openapi({ description: `Time range (default ${fallback})` });

export const orderQuery = () =>
  z
    .enum(["asc", "desc"], message("Invalid order: must be asc or desc"))
    .optional()
    .openapi({ description: "asc or desc" });

/** A positive integer; `description` says its default and maximum. */
export const positiveLimitQuery = (description: string) =>
  strictInt("Invalid limit: must be a positive integer", /^0*[1-9]\d{0,8}$/)
    .optional()
    .openapi({ type: "integer", minimum: 1, description });

export const limitQuery = () => positiveLimitQuery("Maximum rows (at most 100)");

/** A comma list of names; `values`, when given, are the names the API accepts. */
export const csvQuery = (description: string, values?: readonly string[]) =>
  z
    .string()
    .transform((text) =>
      text
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .optional()
    .openapi(
      commaListOpenApi(values ? { type: "string", enum: [...values] } : { type: "string" }, description),
    );

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
      .openapi({ description: "Over all the requested connections (the one connection's figures for one)" }),
  })
  .openapi("PerformanceSummary");

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
        transaction_rate: z.number().openapi({ description: "Commits per second; 0 before a second sample" }),
        dead_tuple_ratio: z.number().nullable().openapi({ description: "Percent" }),
        active_connections: z.number().int().nullable(),
      }),
    ),
  })
  .openapi("DatabaseSummaries");

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

export const LatestSnapshotSchema = z
  .object({ rows: z.array(z.record(z.string(), z.unknown())), total_count: z.number().int() })
  .openapi("LatestSnapshot");
