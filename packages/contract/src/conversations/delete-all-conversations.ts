import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { DeleteAllConversationsQuerySchema, DeleteAllSchema } from "./schemas.js";

export const deleteAllConversations = defineOperation({
  method: "delete",
  path: "/api/v1/conversations",
  operationId: "deleteAllConversations",
  summary: "Delete all conversations",
  description: "Deletes all of the caller's conversations; `?all=true` confirms it.",
  tag: "conversations",
  access: { note: "Only the caller's own conversations." },
  request: { query: DeleteAllConversationsQuerySchema },
  responses: { 200: jsonResponse(DeleteAllSchema, "Conversations deleted") },
  errors: [400],
});
