import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConversationIdParamSchema, ConversationRenameSchema, SuccessSchema } from "./schemas.js";

export const renameConversation = defineOperation({
  method: "patch",
  path: "/api/v1/conversations/{id}",
  operationId: "renameConversation",
  summary: "Rename a conversation",
  description: "Updates the conversation title.",
  tag: "conversations",
  access: { note: "Another user's conversation is not found, for superusers too." },
  request: { params: ConversationIdParamSchema, body: jsonBody(ConversationRenameSchema) },
  responses: { 200: jsonResponse(SuccessSchema, "Conversation renamed") },
  errors: [400, 404],
});
