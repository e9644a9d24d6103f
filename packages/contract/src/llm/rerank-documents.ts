import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { RerankRequestSchema, RerankResponseSchema } from "./schemas.js";

export const rerankDocuments = defineOperation({
  method: "post",
  path: "/api/v1/llm/rerank",
  operationId: "rerankDocuments",
  summary: "Rerank documents against a query",
  description: "Through the configured rerank provider (Voyage or Cohere); the most relevant first.",
  tag: "llm",
  access: {},
  request: { body: jsonBody(RerankRequestSchema) },
  responses: { 200: jsonResponse(RerankResponseSchema, "Documents by relevance") },
  errors: [400, 503],
});
