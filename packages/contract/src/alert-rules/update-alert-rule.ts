import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  AlertRuleIdParamsSchema,
  AlertRuleSchema,
  AlertRuleUpdateSchema,
  manageAlertRulesRefusal,
} from "./schemas.js";

export const updateAlertRule = defineOperation({
  method: "put",
  path: "/api/v1/alert-rules/{id}",
  operationId: "updateAlertRule",
  summary: "Update an alert rule's defaults",
  description: "Partial update of the defaults.",
  tag: "alerts",
  access: { permission: "manage_alert_rules", message: manageAlertRulesRefusal },
  request: { params: AlertRuleIdParamsSchema, body: jsonBody(AlertRuleUpdateSchema) },
  responses: { 200: jsonResponse(AlertRuleSchema, "Updated rule") },
  errors: [400, 404],
});
