import { CONVERSATION_PAGING, listConversations } from "@dbmon/contract";
import { presentConversationSummary } from "../../conversations/present.js";
import { implement } from "../../http/operations.js";
import { pageOf } from "../../paging.js";

export const listConversationsHandler = implement(listConversations, async (c) => {
  const caller = await c.get("access").requireCaller();
  const { limit, offset } = c.req.valid("query");
  const conversations = await c
    .get("services")
    .conversations.list(caller, pageOf(limit, offset, CONVERSATION_PAGING));
  return c.json({ conversations: conversations.map(presentConversationSummary) }, 200);
});
