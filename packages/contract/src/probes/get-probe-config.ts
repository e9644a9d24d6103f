import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ProbeConfigIdParamsSchema, ProbeConfigSchema } from "./schemas.js";

export const getProbeConfig = defineOperation({
  method: "get",
  path: "/api/v1/probe-configs/{id}",
  operationId: "getProbeConfig",
  summary: "Get a probe configuration",
  tag: "probes",
  access: {},
  request: { params: ProbeConfigIdParamsSchema },
  responses: { 200: jsonResponse(ProbeConfigSchema, "The probe configuration") },
  errors: [400, 404],
});
