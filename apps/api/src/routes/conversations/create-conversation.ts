import { createConversation } from "@dbmon/contract";
import { presentConversation } from "../../conversations/present.js";
import { implement } from "../../http/operations.js";

export const createConversationHandler = implement(createConversation, async (c) => {
  const caller = await c.get("access").requireCaller();
  const conversation = await c.get("services").conversations.create(caller, c.req.valid("json"));
  return c.json(presentConversation(conversation), 201);
});
