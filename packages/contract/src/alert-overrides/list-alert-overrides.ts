import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { AlertOverrideSchema, OverrideScopeParamsSchema } from "./schemas.js";

export const listAlertOverrides = defineOperation({
  method: "get",
  path: "/api/v1/alert-overrides/{scope}/{scopeId}",
  operationId: "listAlertOverrides",
  summary: "List overrides for a scope",
  description: "Every rule with the scope's override, if any.",
  tag: "alerts",
  access: { note: "A scope without a connection the caller can see is not found." },
  request: { params: OverrideScopeParamsSchema },
  responses: { 200: jsonResponse(z.array(AlertOverrideSchema), "Rules and overrides") },
  errors: [400, 404],
});
