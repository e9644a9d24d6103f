import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { EmbeddingsResponseSchema, EmbedRequestSchema } from "./schemas.js";

export const createEmbeddings = defineOperation({
  method: "post",
  path: "/api/v1/llm/embed",
  operationId: "createEmbeddings",
  summary: "Embeddings for input text",
  description:
    "Through the configured embedding provider (OpenAI, Voyage, Gemini or Ollama), or the one named.",
  tag: "llm",
  access: {},
  request: { body: jsonBody(EmbedRequestSchema) },
  responses: { 200: jsonResponse(EmbeddingsResponseSchema, "One embedding per input, in order") },
  errors: [400, 503],
});
