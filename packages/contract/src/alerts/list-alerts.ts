import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { AlertListQuerySchema, AlertListResultSchema } from "./schemas.js";

export const listAlerts = defineOperation({
  method: "get",
  path: "/api/v1/alerts",
  operationId: "listAlerts",
  summary: "List alerts with filters",
  description:
    "Alerts on the connections the caller can see, newest first. Malformed numbers and times in the " +
    "query are ignored, as the reference does.",
  tag: "alerts",
  access: { note: "Alerts on connections the caller cannot see are left out." },
  request: { query: AlertListQuerySchema },
  responses: { 200: jsonResponse(AlertListResultSchema, "Alerts") },
});
