import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  manageProbesAccess,
  ProbeConfigIdParamsSchema,
  ProbeConfigSchema,
  ProbeConfigUpdateSchema,
} from "./schemas.js";

export const updateProbeConfig = defineOperation({
  method: "put",
  path: "/api/v1/probe-configs/{id}",
  operationId: "updateProbeConfig",
  summary: "Update a probe configuration",
  description: "Changes the given fields; running collectors apply the change at their next reload.",
  tag: "probes",
  access: manageProbesAccess,
  request: { params: ProbeConfigIdParamsSchema, body: jsonBody(ProbeConfigUpdateSchema) },
  responses: { 200: jsonResponse(ProbeConfigSchema, "The updated probe configuration") },
  errors: [400, 404],
});
