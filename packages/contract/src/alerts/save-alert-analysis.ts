import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ONE_ALERT_ACCESS, SaveAnalysisRequestSchema, StatusResponseSchema } from "./schemas.js";

export const saveAlertAnalysis = defineOperation({
  method: "put",
  path: "/api/v1/alerts/analysis",
  operationId: "saveAlertAnalysis",
  summary: "Save an AI analysis for an alert",
  tag: "alerts",
  access: ONE_ALERT_ACCESS,
  request: { body: jsonBody(SaveAnalysisRequestSchema) },
  responses: { 200: jsonResponse(StatusResponseSchema, "Saved") },
  errors: [400, 403, 404],
});
