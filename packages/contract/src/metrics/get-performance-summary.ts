import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { metricsAccess, oneConnectionChoice, PerformanceSummarySchema, summaryQuery } from "./schemas.js";

export const getPerformanceSummary = defineOperation({
  method: "get",
  path: "/api/v1/metrics/performance-summary",
  operationId: "getPerformanceSummary",
  summary: "Performance summary",
  description:
    "Transaction ID age, cache hit ratio, transaction rates and checkpoint times per connection. Ratios in percent.",
  tag: "metrics",
  access: metricsAccess,
  oneOfRequired: oneConnectionChoice,
  request: { query: summaryQuery("1h") },
  responses: { 200: jsonResponse(PerformanceSummarySchema, "Summary") },
  errors: [400, 403, 404],
});
