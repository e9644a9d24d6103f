import { manageAlertRulesRefusal } from "../alert-rules/schemas.js";
import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { AlertOverrideUpdateSchema, OverrideRuleParamsSchema } from "./schemas.js";

export const upsertAlertOverride = defineOperation({
  method: "put",
  path: "/api/v1/alert-overrides/{scope}/{scopeId}/{ruleId}",
  operationId: "upsertAlertOverride",
  summary: "Create or update an override",
  description: "duration_seconds, when omitted, inherits from the next scope.",
  tag: "alerts",
  access: {
    permission: "manage_alert_rules",
    message: manageAlertRulesRefusal,
    note: "A scope without a connection the caller can see is not found.",
  },
  request: { params: OverrideRuleParamsSchema, body: jsonBody(AlertOverrideUpdateSchema) },
  responses: { 200: jsonResponse(StatusResponseSchema, "Saved") },
  errors: [400, 404],
});
