import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ProbeOverrideSchema, ProbeOverrideScopeParamsSchema } from "./schemas.js";

export const listProbeOverrides = defineOperation({
  method: "get",
  path: "/api/v1/probe-overrides/{scope}/{scopeId}",
  operationId: "listProbeOverrides",
  summary: "List probe overrides for a scope",
  description:
    "Every probe with its global default and this scope's override, if any. Non-superusers need a visible " +
    "connection in the scope.",
  tag: "probes",
  access: {},
  request: { params: ProbeOverrideScopeParamsSchema },
  responses: { 200: jsonResponse(z.array(ProbeOverrideSchema), "Probes with this scope's overrides") },
  errors: [400, 404],
});
