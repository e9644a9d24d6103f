import { deleteAllConversations } from "@dbmon/contract";
import { InvalidInput } from "../../errors.js";
import { implement } from "../../http/operations.js";

export const deleteAllConversationsHandler = implement(deleteAllConversations, async (c) => {
  if (!c.req.valid("query").all) {
    throw new InvalidInput("Use ?all=true to delete all conversations");
  }
  const caller = await c.get("access").requireCaller();
  const deleted = await c.get("services").conversations.deleteAll(caller);
  return c.json({ success: true as const, deleted }, 200);
});
