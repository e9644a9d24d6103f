import { deleteConversation } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteConversationHandler = implement(deleteConversation, async (c) => {
  const caller = await c.get("access").requireCaller();
  await c.get("services").conversations.delete(caller, c.req.valid("param").id);
  return c.json({ success: true as const }, 200);
});
