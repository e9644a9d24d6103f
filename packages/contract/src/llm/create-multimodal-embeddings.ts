import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { EmbeddingsResponseSchema, MultimodalEmbedRequestSchema } from "./schemas.js";

export const createMultimodalEmbeddings = defineOperation({
  method: "post",
  path: "/api/v1/llm/embed/multimodal",
  operationId: "createMultimodalEmbeddings",
  summary: "Embeddings for text and image inputs",
  description: "Through Voyage's multimodal model: each input interleaves text and images (URL or base64).",
  tag: "llm",
  access: {},
  request: { body: jsonBody(MultimodalEmbedRequestSchema) },
  responses: { 200: jsonResponse(EmbeddingsResponseSchema, "One embedding per input, in order") },
  errors: [400, 503],
});
