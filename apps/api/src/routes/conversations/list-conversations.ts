import { listConversations } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listConversationsHandler = implement(listConversations, async (c) => {
  const caller = await c.get("access").requireCaller();
  return c.json(await c.get("services").conversations.list(caller, c.req.valid("query")), 200);
});
