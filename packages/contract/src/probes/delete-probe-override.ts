import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { manageProbesAccess, ProbeOverrideParamsSchema, ProbeOverrideStatusSchema } from "./schemas.js";

export const deleteProbeOverride = defineOperation({
  method: "delete",
  path: "/api/v1/probe-overrides/{scope}/{scopeId}/{probeName}",
  operationId: "deleteProbeOverride",
  summary: "Delete an override",
  description: "The scope then inherits again.",
  tag: "probes",
  access: manageProbesAccess,
  request: { params: ProbeOverrideParamsSchema },
  responses: { 200: jsonResponse(ProbeOverrideStatusSchema, "Deleted (or there was none)") },
  errors: [400, 404],
});
