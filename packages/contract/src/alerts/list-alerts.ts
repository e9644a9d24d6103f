import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ALERT_VISIBILITY, AlertListQuerySchema, AlertListResultSchema } from "./schemas.js";

export const listAlerts = defineOperation({
  method: "get",
  path: "/api/v1/alerts",
  operationId: "listAlerts",
  summary: "List alerts with filters",
  description:
    "Alerts on the connections the caller can see, newest first. Malformed numbers and times in the " +
    "query are ignored, as the reference does. A whole-server alert is listed once, with the " +
    "`connection_id` and `server_name` of the connection the caller sees it through: its own when " +
    "visible (and not filtered out by `connection_id`), else the lowest-id visible connection of its server.",
  tag: "alerts",
  access: { note: `${ALERT_VISIBILITY} Alerts the caller cannot see are left out.` },
  request: { query: AlertListQuerySchema },
  responses: { 200: jsonResponse(AlertListResultSchema, "Alerts") },
});
