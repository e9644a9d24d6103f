import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ModelsQuerySchema, ModelsResponseSchema } from "./schemas.js";

export const listLlmModels = defineOperation({
  method: "get",
  path: "/api/v1/llm/models",
  operationId: "listLLMModels",
  summary: "List LLM models",
  description:
    "The chat models a configured provider offers, as the provider lists them. The list is asked of the " +
    "provider at most once a minute and shared by every caller meanwhile. Anonymous requests are limited " +
    "per client address (30 a minute unless configured; 429 beyond).",
  tag: "llm",
  access: "public",
  request: { query: ModelsQuerySchema },
  responses: { 200: jsonResponse(ModelsResponseSchema, "Available models") },
  errors: [400, 429],
});
