import { listTimelineEvents } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listTimelineEventsHandler = implement(listTimelineEvents, async (c) => {
  return c.json(await c.get("services").timeline.list(c.get("access"), c.req.valid("query")), 200);
});
