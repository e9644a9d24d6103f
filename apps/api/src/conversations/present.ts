import type { Conversation, ConversationSummary } from "./store.js";

/** A conversation as the wire shows it: provider, model and connection only when set. */
export function presentConversation(conversation: Conversation) {
  return {
    id: conversation.id,
    username: conversation.username,
    title: conversation.title,
    ...(conversation.provider ? { provider: conversation.provider } : {}),
    ...(conversation.model ? { model: conversation.model } : {}),
    ...(conversation.connection ? { connection: conversation.connection } : {}),
    messages: conversation.messages,
    created_at: conversation.createdAt.toISOString(),
    updated_at: conversation.updatedAt.toISOString(),
  };
}

/** A listed conversation as the wire shows it: the connection only when set. */
export function presentConversationSummary(summary: ConversationSummary) {
  return {
    id: summary.id,
    title: summary.title,
    ...(summary.connection ? { connection: summary.connection } : {}),
    created_at: summary.createdAt.toISOString(),
    updated_at: summary.updatedAt.toISOString(),
    preview: summary.preview,
  };
}
