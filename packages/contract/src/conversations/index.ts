import { createConversation } from "./create-conversation.js";
import { deleteAllConversations } from "./delete-all-conversations.js";
import { deleteConversation } from "./delete-conversation.js";
import { getConversation } from "./get-conversation.js";
import { listConversations } from "./list-conversations.js";
import { renameConversation } from "./rename-conversation.js";
import { updateConversation } from "./update-conversation.js";

export * from "./create-conversation.js";
export * from "./delete-all-conversations.js";
export * from "./delete-conversation.js";
export * from "./get-conversation.js";
export * from "./list-conversations.js";
export * from "./rename-conversation.js";
export * from "./schemas.js";
export * from "./update-conversation.js";

export const conversationOperations = [
  listConversations,
  createConversation,
  deleteAllConversations,
  getConversation,
  updateConversation,
  renameConversation,
  deleteConversation,
] as const;
