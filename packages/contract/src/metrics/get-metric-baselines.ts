import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { BaselineSchema, csvQuery, metricsAccess, probeQuery } from "./schemas.js";

export const getMetricBaselines = defineOperation({
  method: "get",
  path: "/api/v1/metrics/baselines",
  operationId: "getMetricBaselines",
  summary: "Metric baseline values",
  description:
    "Statistics of each numeric column of the probe over the connection's last 7 days of collected data: " +
    "mean, population standard deviation, extremes and percentiles (continuous).",
  tag: "metrics",
  access: metricsAccess,
  request: {
    query: probeQuery().extend({
      metrics: csvQuery("Comma-separated metric names (<probe>.<column>, or the column)"),
    }),
  },
  responses: { 200: jsonResponse(z.array(BaselineSchema), "Baselines") },
  errors: [400, 403, 404],
});
