import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConversationIdParamSchema, ConversationSchema } from "./schemas.js";

export const getConversation = defineOperation({
  method: "get",
  path: "/api/v1/conversations/{id}",
  operationId: "getConversation",
  summary: "Get conversation by ID",
  description: "Returns a specific conversation with all messages.",
  tag: "conversations",
  access: { note: "Another user's conversation is not found, for superusers too." },
  request: { params: ConversationIdParamSchema },
  responses: { 200: jsonResponse(ConversationSchema, "Conversation details") },
  errors: [404],
});
