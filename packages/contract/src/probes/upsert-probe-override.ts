import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  manageProbesAccess,
  ProbeOverrideParamsSchema,
  ProbeOverrideStatusSchema,
  ProbeOverrideUpdateSchema,
} from "./schemas.js";

export const upsertProbeOverride = defineOperation({
  method: "put",
  path: "/api/v1/probe-overrides/{scope}/{scopeId}/{probeName}",
  operationId: "upsertProbeOverride",
  summary: "Create or update an override",
  description:
    "Sets the probe's settings for the scope; they win over the broader scopes (server over cluster over " +
    "group over global).",
  tag: "probes",
  access: manageProbesAccess,
  request: { params: ProbeOverrideParamsSchema, body: jsonBody(ProbeOverrideUpdateSchema) },
  responses: { 200: jsonResponse(ProbeOverrideStatusSchema, "Saved") },
  errors: [400, 404],
});
