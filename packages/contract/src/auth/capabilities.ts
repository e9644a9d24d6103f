import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { CapabilitiesSchema } from "./schemas.js";

export const capabilities = defineOperation({
  method: "get",
  path: "/api/v1/capabilities",
  operationId: "getCapabilities",
  summary: "Server capability flags",
  tag: "authentication",
  access: {},
  responses: { 200: jsonResponse(CapabilitiesSchema, "Server capabilities") },
});
