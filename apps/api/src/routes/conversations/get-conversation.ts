import { getConversation } from "@dbmon/contract";
import { presentConversation } from "../../conversations/present.js";
import { implement } from "../../http/operations.js";

export const getConversationHandler = implement(getConversation, async (c) => {
  const caller = await c.get("access").requireCaller();
  const conversation = await c.get("services").conversations.get(caller, c.req.valid("param").id);
  return c.json(presentConversation(conversation), 200);
});
