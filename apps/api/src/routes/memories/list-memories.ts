import { listMemories } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listMemoriesHandler = implement(listMemories, async (c) => {
  const caller = await c.get("access").requireCaller();
  const memories = await c.get("services").memories.list(caller, c.req.valid("query"));
  return c.json({ memories }, 200);
});
