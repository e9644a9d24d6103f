import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ALERT_VISIBILITY, AlertCountsResultSchema } from "./schemas.js";

export const alertCounts = defineOperation({
  method: "get",
  path: "/api/v1/alerts/counts",
  operationId: "getAlertCounts",
  summary: "Alert counts by server",
  description:
    "Active alerts visible to the caller, in total and by connection ID: each alert once, under the " +
    "connection it is listed under (GET /api/v1/alerts).",
  tag: "alerts",
  access: { note: `${ALERT_VISIBILITY} Alerts the caller cannot see are not counted.` },
  responses: { 200: jsonResponse(AlertCountsResultSchema, "Counts") },
});
