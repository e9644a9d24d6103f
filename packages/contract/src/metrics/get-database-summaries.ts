import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  connectionIdQuery,
  connectionIdsQuery,
  DatabaseSummariesSchema,
  metricsAccess,
  timeRangeQuery,
} from "./schemas.js";

export const getDatabaseSummaries = defineOperation({
  method: "get",
  path: "/api/v1/metrics/database-summaries",
  operationId: "getDatabaseSummaries",
  summary: "Database-level summaries",
  tag: "metrics",
  access: metricsAccess,
  request: {
    query: z.object({
      connection_id: connectionIdQuery(),
      connection_ids: connectionIdsQuery(),
      time_range: timeRangeQuery("24h"),
    }),
  },
  responses: { 200: jsonResponse(DatabaseSummariesSchema, "Databases") },
  errors: [400, 403],
});
