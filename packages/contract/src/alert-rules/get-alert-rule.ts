import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { AlertRuleIdParamsSchema, AlertRuleSchema } from "./schemas.js";

export const getAlertRule = defineOperation({
  method: "get",
  path: "/api/v1/alert-rules/{id}",
  operationId: "getAlertRule",
  summary: "Get an alert rule",
  tag: "alerts",
  access: {},
  request: { params: AlertRuleIdParamsSchema },
  responses: { 200: jsonResponse(AlertRuleSchema, "Rule") },
  errors: [400, 404],
});
