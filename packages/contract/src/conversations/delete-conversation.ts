import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConversationIdParamSchema, SuccessSchema } from "./schemas.js";

export const deleteConversation = defineOperation({
  method: "delete",
  path: "/api/v1/conversations/{id}",
  operationId: "deleteConversation",
  summary: "Delete a conversation",
  description: "Deletes a conversation.",
  tag: "conversations",
  access: { note: "Another user's conversation is not found, for superusers too." },
  request: { params: ConversationIdParamSchema },
  responses: { 200: jsonResponse(SuccessSchema, "Conversation deleted") },
  errors: [404],
});
