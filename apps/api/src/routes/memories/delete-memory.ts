import { deleteMemory } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteMemoryHandler = implement(deleteMemory, async (c) => {
  await c.get("services").memories.delete(c.get("access"), c.req.valid("param").id);
  return c.json({ status: "deleted" as const }, 200);
});
