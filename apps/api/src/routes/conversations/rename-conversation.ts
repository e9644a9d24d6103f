import { renameConversation } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const renameConversationHandler = implement(renameConversation, async (c) => {
  const caller = await c.get("access").requireCaller();
  await c.get("services").conversations.rename(caller, c.req.valid("param").id, c.req.valid("json").title);
  return c.json({ success: true as const }, 200);
});
