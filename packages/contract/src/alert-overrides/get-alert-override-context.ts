import { z } from "@hono/zod-openapi";
import { manageAlertRulesRefusal } from "../alert-rules/schemas.js";
import { idParam, jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { OverrideContextSchema } from "./schemas.js";

export const getAlertOverrideContext = defineOperation({
  method: "get",
  path: "/api/v1/alert-overrides/context/{connectionId}/{ruleId}",
  operationId: "getAlertOverrideContext",
  summary: "Override editing context",
  description: "A connection's cluster and group, the rule and its overrides at each level.",
  tag: "alerts",
  access: {
    permission: "manage_alert_rules",
    message: manageAlertRulesRefusal,
    note: "A connection the caller cannot see is not found.",
  },
  request: {
    params: z.object({ connectionId: idParam("Invalid connection ID"), ruleId: idParam("Invalid rule ID") }),
  },
  responses: { 200: jsonResponse(OverrideContextSchema, "Context") },
  errors: [400, 404],
});
