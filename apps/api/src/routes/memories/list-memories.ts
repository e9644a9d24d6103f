import { listMemories, MEMORY_PAGING, pageSize } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentMemory } from "../../memories/present.js";

export const listMemoriesHandler = implement(listMemories, async (c) => {
  const caller = await c.get("access").requireCaller();
  const { category, limit } = c.req.valid("query");
  const memories = await c
    .get("services")
    .memories.list(caller, { category }, pageSize(limit, MEMORY_PAGING));
  return c.json({ memories: memories.map(presentMemory) }, 200);
});
