import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { AcknowledgeRequestSchema, StatusResponseSchema } from "./schemas.js";

export const acknowledgeAlert = defineOperation({
  method: "post",
  path: "/api/v1/alerts/acknowledge",
  operationId: "acknowledgeAlert",
  summary: "Acknowledge an alert",
  description: "An active alert becomes acknowledged; it needs access to the alert's connection.",
  tag: "alerts",
  access: { note: "The alert's connection must be visible to the caller (403 otherwise)." },
  request: { body: jsonBody(AcknowledgeRequestSchema) },
  responses: { 200: jsonResponse(StatusResponseSchema, "Acknowledged") },
  errors: [400, 403, 404, 409],
});
