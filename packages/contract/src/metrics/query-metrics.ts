import { z } from "@hono/zod-openapi";
import { jsonResponse, message, typedText } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  AGGREGATIONS,
  connectionIdQuery,
  connectionIdsQuery,
  csvQuery,
  MetricSeriesSchema,
  metricsAccess,
  oneConnectionChoice,
  probeNameQuery,
  timeRangeQuery,
} from "./schemas.js";

const invalidBuckets = message("Invalid buckets: must be between 1 and 500");

export const queryMetrics = defineOperation({
  method: "get",
  path: "/api/v1/metrics/query",
  operationId: "queryMetrics",
  summary: "Query metric data points",
  description:
    "Time-bucketed series of a probe's numeric columns, one per metric and connection. Buckets are " +
    "time_range/buckets wide (whole seconds); empty buckets repeat the last value (leading ones are omitted).",
  tag: "metrics",
  access: metricsAccess,
  oneOfRequired: oneConnectionChoice,
  request: {
    query: z.object({
      connection_id: connectionIdQuery(),
      connection_ids: connectionIdsQuery(),
      probe_name: probeNameQuery(),
      time_range: timeRangeQuery("1h"),
      buckets: typedText<number, z.ZodType<number>>(
        z
          .string()
          .regex(/^\d{1,9}$/, invalidBuckets)
          .transform(Number)
          .refine((value) => value >= 1 && value <= 500, invalidBuckets),
      )
        .optional()
        .openapi({ type: "integer", description: "Number of buckets, 1 to 500 (default 150)" }),
      aggregation: z
        .string()
        .transform((text) => text.toLowerCase())
        .pipe(z.enum(AGGREGATIONS, message("Invalid aggregation: must be one of avg, sum, min, max, last")))
        .optional()
        .openapi({
          type: "string",
          enum: [...AGGREGATIONS],
          description: "avg (default), sum, min, max or last; case-insensitive",
        }),
      metrics: csvQuery("Comma-separated metric (column) names; default every numeric column"),
      database_name: z.string().optional(),
      schema_name: z.string().optional(),
      table_name: z.string().optional(),
    }),
  },
  responses: { 200: jsonResponse(z.array(MetricSeriesSchema), "Series") },
  errors: [400, 403, 404],
});
