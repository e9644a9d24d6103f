import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { AlertCountsResultSchema } from "./schemas.js";

export const alertCounts = defineOperation({
  method: "get",
  path: "/api/v1/alerts/counts",
  operationId: "getAlertCounts",
  summary: "Alert counts by server",
  description: "Active alerts on visible connections, in total and by connection ID.",
  tag: "alerts",
  access: { note: "Alerts on connections the caller cannot see are not counted." },
  responses: { 200: jsonResponse(AlertCountsResultSchema, "Counts") },
});
