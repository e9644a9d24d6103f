import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ProvidersResponseSchema } from "./schemas.js";

export const listLlmProviders = defineOperation({
  method: "get",
  path: "/api/v1/llm/providers",
  operationId: "listLLMProviders",
  summary: "List LLM providers",
  description: "The configured chat providers (anthropic, openai, gemini, ollama) and the default model.",
  tag: "llm",
  access: "public",
  responses: { 200: jsonResponse(ProvidersResponseSchema, "Available providers") },
  errors: [405],
});
