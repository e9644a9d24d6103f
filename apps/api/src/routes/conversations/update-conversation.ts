import { updateConversation } from "@dbmon/contract";
import { presentConversation } from "../../conversations/present.js";
import { implement } from "../../http/operations.js";

export const updateConversationHandler = implement(updateConversation, async (c) => {
  const caller = await c.get("access").requireCaller();
  const conversation = await c
    .get("services")
    .conversations.update(caller, c.req.valid("param").id, c.req.valid("json"));
  return c.json(presentConversation(conversation), 200);
});
