import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { LlmHealthSchema } from "./schemas.js";

export const getLlmHealth = defineOperation({
  method: "get",
  path: "/api/v1/llm/health",
  operationId: "getLLMHealth",
  summary: "LLM proxy health",
  description:
    "Whether each configured provider answers (a model list or its equivalent), probed at most every 30 seconds.",
  tag: "llm",
  access: "public",
  responses: { 200: jsonResponse(LlmHealthSchema, "Health of the configured providers") },
  errors: [405],
});
