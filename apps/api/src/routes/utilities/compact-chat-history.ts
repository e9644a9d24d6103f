import { compactChatHistory } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const compactChatHistoryHandler = implement(compactChatHistory, async (c) => {
  const result = await c.get("services").chatCompaction.compact(c.req.valid("json"), c.req.raw.signal);
  return c.json(result, 200);
});
