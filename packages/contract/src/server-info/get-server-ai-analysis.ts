import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { AiAnalysisSchema, ConnectionIdParamSchema } from "./schemas.js";

export const getServerAiAnalysis = defineOperation({
  method: "get",
  path: "/api/v1/server-info/{connection_id}/ai-analysis",
  operationId: "getServerAiAnalysis",
  summary: "AI-generated description of the likely purpose of each database of a connection",
  description:
    "JSON null when no LLM provider is configured, when the connection has no collected databases, or when " +
    "the provider fails. Cached per connection for five minutes.",
  tag: "serverInfo",
  access: { connection: { param: "connection_id", level: "read" } },
  request: { params: ConnectionIdParamSchema },
  responses: { 200: jsonResponse(AiAnalysisSchema.nullable(), "The analysis, or null") },
  errors: [400, 404],
});
