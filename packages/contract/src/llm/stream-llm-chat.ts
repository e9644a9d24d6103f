import { defineOperation, jsonBody } from "../operation.js";
import { ChatRequestSchema, ChatStreamSchema } from "./schemas.js";

export const streamLlmChat = defineOperation({
  method: "post",
  path: "/api/v1/llm/chat/stream",
  operationId: "streamLLMChat",
  summary: "Stream a chat response as SSE",
  description:
    "The body of POST /api/v1/llm/chat (and its limit on tool-use rounds), answered as server-sent events as " +
    "the provider streams. A provider failure before the first event is a 500; later, an `error` event ends " +
    "the stream. Closing the connection aborts the provider request. The whole stream has the provider time limit (120 s unless configured): " +
    "when it passes, the provider request is aborted and an `error` event ends the stream. A user may have " +
    "only so many chat streams open at once on one dbmon process (4 unless configured): one more is refused " +
    "with 429 until one of them ends.",
  tag: "llm",
  access: {},
  request: { body: jsonBody(ChatRequestSchema, "Chat messages and tools") },
  responses: {
    200: {
      description: "The answer as server-sent events",
      content: { "text/event-stream": { schema: ChatStreamSchema } },
    },
  },
  errors: [400, 429, 503],
});
