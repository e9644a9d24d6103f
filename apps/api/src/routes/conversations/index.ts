import { createConversationHandler } from "./create-conversation.js";
import { deleteAllConversationsHandler } from "./delete-all-conversations.js";
import { deleteConversationHandler } from "./delete-conversation.js";
import { getConversationHandler } from "./get-conversation.js";
import { listConversationsHandler } from "./list-conversations.js";
import { renameConversationHandler } from "./rename-conversation.js";
import { updateConversationHandler } from "./update-conversation.js";

export const conversationHandlers = [
  listConversationsHandler,
  createConversationHandler,
  deleteAllConversationsHandler,
  getConversationHandler,
  updateConversationHandler,
  renameConversationHandler,
  deleteConversationHandler,
];
