import { z } from "@hono/zod-openapi";
import { jsonResponse, message, typedText } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  limitQuery,
  metricsAccess,
  orderQuery,
  requiredConnectionIdQuery,
  TOP_QUERY_ORDERS,
  TopQuerySchema,
} from "./schemas.js";

export const getTopQueries = defineOperation({
  method: "get",
  path: "/api/v1/metrics/top-queries",
  operationId: "getTopQueries",
  summary: "Top queries by resource usage",
  description: "From the latest pg_stat_statements collection of the connection, one row per queryid.",
  tag: "metrics",
  access: metricsAccess,
  request: {
    query: z.object({
      connection_id: requiredConnectionIdQuery(),
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
      exclude_collector: typedText<boolean, z.ZodType<boolean>>(
        z
          .enum(["true", "false"], message("Invalid exclude_collector: must be true or false"))
          .transform((text) => text === "true"),
      )
        .optional()
        .openapi({ type: "boolean", description: "Leave out the collectors' own queries" }),
    }),
  },
  responses: { 200: jsonResponse(z.array(TopQuerySchema), "Queries") },
  errors: [400, 403],
});
