import { createConversation } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createConversationHandler = implement(createConversation, async (c) => {
  const caller = await c.get("access").requireCaller();
  return c.json(await c.get("services").conversations.create(caller, c.req.valid("json")), 201);
});
