import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConversationCreateSchema, ConversationSchema } from "./schemas.js";

export const createConversation = defineOperation({
  method: "post",
  path: "/api/v1/conversations",
  operationId: "createConversation",
  summary: "Create a conversation",
  description: "Titled after the first user message (up to 50 characters), else `New conversation`.",
  tag: "conversations",
  access: {},
  request: { body: jsonBody(ConversationCreateSchema, "Conversation details") },
  responses: { 201: jsonResponse(ConversationSchema, "Conversation created") },
  errors: [400],
});
