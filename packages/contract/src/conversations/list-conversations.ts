import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConversationListQuerySchema, ConversationListSchema } from "./schemas.js";

export const listConversations = defineOperation({
  method: "get",
  path: "/api/v1/conversations",
  operationId: "listConversations",
  summary: "List conversations",
  description: "The caller's conversations, most recently updated first.",
  tag: "conversations",
  access: { note: "Only the caller's own conversations." },
  request: { query: ConversationListQuerySchema },
  responses: { 200: jsonResponse(ConversationListSchema, "List of conversations") },
});
