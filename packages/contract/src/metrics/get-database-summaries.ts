import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { DatabaseSummariesSchema, metricsAccess, oneConnectionChoice, summaryQuery } from "./schemas.js";

export const getDatabaseSummaries = defineOperation({
  method: "get",
  path: "/api/v1/metrics/database-summaries",
  operationId: "getDatabaseSummaries",
  summary: "Database-level summaries",
  tag: "metrics",
  access: metricsAccess,
  oneOfRequired: oneConnectionChoice,
  request: { query: summaryQuery("24h") },
  responses: { 200: jsonResponse(DatabaseSummariesSchema, "Databases") },
  errors: [400, 403, 404],
});
