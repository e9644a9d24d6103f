import { listTimelineEvents } from "@dbmon/contract";
import { InvalidInput } from "../../errors.js";
import { implement } from "../../http/operations.js";

/** The wire's page: `limit` 500 by default, at most 1000. */
const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 1000;

export const listTimelineEventsHandler = implement(listTimelineEvents, async (c) => {
  const query = c.req.valid("query");
  if (!query.start_time) {
    throw new InvalidInput("start_time is required");
  }
  if (!query.end_time) {
    throw new InvalidInput("end_time is required");
  }
  const { events, total } = await c.get("services").timeline.list(
    c.get("access"),
    {
      start: query.start_time,
      end: query.end_time,
      connectionIds:
        query.connection_ids ?? (query.connection_id === undefined ? undefined : [query.connection_id]),
      eventTypes: query.event_types,
    },
    { limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT), offset: 0 },
  );
  return c.json({ events, total_count: total }, 200);
});
