import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { CompactRequestSchema, CompactResponseSchema } from "./schemas.js";

export const compactChatHistory = defineOperation({
  method: "post",
  path: "/api/v1/chat/compact",
  operationId: "compactChatHistory",
  summary: "Compact chat history",
  description:
    "Keeps the first message, important messages (tool calls with their results, SQL, schema details) and the " +
    "most recent ones within the token budget, with an optional summary of what was dropped. No LLM is called " +
    "unless `options.enable_llm_summarization` is set and a chat provider is configured.",
  tag: "utilities",
  access: {},
  request: { body: jsonBody(CompactRequestSchema, "Messages to compact") },
  responses: { 200: jsonResponse(CompactResponseSchema, "Compacted messages") },
  errors: [400],
});
