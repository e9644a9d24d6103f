import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { SaveAnalysisRequestSchema, StatusResponseSchema } from "./schemas.js";

export const saveAlertAnalysis = defineOperation({
  method: "put",
  path: "/api/v1/alerts/analysis",
  operationId: "saveAlertAnalysis",
  summary: "Save an AI analysis for an alert",
  tag: "alerts",
  access: { note: "The alert's connection must be visible to the caller (403 otherwise)." },
  request: { body: jsonBody(SaveAnalysisRequestSchema) },
  responses: { 200: jsonResponse(StatusResponseSchema, "Saved") },
  errors: [400, 403, 404],
});
