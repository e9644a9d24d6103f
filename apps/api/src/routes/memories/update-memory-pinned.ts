import { updateMemoryPinned } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const updateMemoryPinnedHandler = implement(updateMemoryPinned, async (c) => {
  const caller = await c.get("access").requireCaller();
  const { id } = c.req.valid("param");
  return c.json(await c.get("services").memories.setPinned(caller, id, c.req.valid("json").pinned), 200);
});
