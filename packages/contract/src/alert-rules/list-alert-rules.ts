import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { AlertRuleSchema } from "./schemas.js";

export const listAlertRules = defineOperation({
  method: "get",
  path: "/api/v1/alert-rules",
  operationId: "listAlertRules",
  summary: "List alert rules",
  description: "Every rule, ordered by category and name.",
  tag: "alerts",
  access: {},
  responses: { 200: jsonResponse(z.array(AlertRuleSchema), "Rules") },
});
