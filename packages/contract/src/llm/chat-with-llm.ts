import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ChatRequestSchema, ChatResponseSchema } from "./schemas.js";

export const chatWithLlm = defineOperation({
  method: "post",
  path: "/api/v1/llm/chat",
  operationId: "chatWithLLM",
  summary: "Send chat message to LLM",
  description:
    "One round trip to the provider (no server-side tool loop). Messages and the answer are Anthropic-style " +
    "content blocks whatever the provider. The caller's pinned memories and a description of the caller are " +
    "added to the system prompt. A conversation whose last question has already taken the most tool-use " +
    "rounds allowed (`max_iterations` of GET /api/v1/capabilities: answers that called a tool since the " +
    "last user turn that is more than tool results) is refused with 400 before the provider is asked.",
  tag: "llm",
  access: {},
  request: { body: jsonBody(ChatRequestSchema, "Chat messages and tools") },
  responses: { 200: jsonResponse(ChatResponseSchema, "LLM response") },
  errors: [400, 503],
});
