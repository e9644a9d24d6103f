import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { AcknowledgeRequestSchema, ONE_ALERT_ACCESS, StatusResponseSchema } from "./schemas.js";

export const acknowledgeAlert = defineOperation({
  method: "post",
  path: "/api/v1/alerts/acknowledge",
  operationId: "acknowledgeAlert",
  summary: "Acknowledge an alert",
  description: "An active alert becomes acknowledged.",
  tag: "alerts",
  access: ONE_ALERT_ACCESS,
  request: { body: jsonBody(AcknowledgeRequestSchema) },
  responses: { 200: jsonResponse(StatusResponseSchema, "Acknowledged") },
  errors: [400, 403, 404, 409],
});
