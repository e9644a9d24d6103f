import { getConversation } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getConversationHandler = implement(getConversation, async (c) => {
  const caller = await c.get("access").requireCaller();
  return c.json(await c.get("services").conversations.get(caller, c.req.valid("param").id), 200);
});
