import { manageAlertRulesRefusal } from "../alert-rules/schemas.js";
import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { OverrideRuleParamsSchema } from "./schemas.js";

export const deleteAlertOverride = defineOperation({
  method: "delete",
  path: "/api/v1/alert-overrides/{scope}/{scopeId}/{ruleId}",
  operationId: "deleteAlertOverride",
  summary: "Delete an override",
  tag: "alerts",
  access: {
    permission: "manage_alert_rules",
    message: manageAlertRulesRefusal,
    note: "A scope without a connection the caller can see is not found.",
  },
  request: { params: OverrideRuleParamsSchema },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted") },
  errors: [400],
});
