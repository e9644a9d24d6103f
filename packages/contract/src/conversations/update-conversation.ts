import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConversationIdParamSchema, ConversationSchema, ConversationUpdateSchema } from "./schemas.js";

export const updateConversation = defineOperation({
  method: "put",
  path: "/api/v1/conversations/{id}",
  operationId: "updateConversation",
  summary: "Update a conversation",
  description: "Replaces the provider, model, connection and (when given) the messages.",
  tag: "conversations",
  access: { note: "Another user's conversation is not found, for superusers too." },
  request: { params: ConversationIdParamSchema, body: jsonBody(ConversationUpdateSchema) },
  responses: { 200: jsonResponse(ConversationSchema, "Updated conversation") },
  errors: [400, 404],
});
