import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { connectionIdQuery, connectionIdsQuery, csvQuery, positiveLimitQuery } from "../metrics/schemas.js";
import { defineOperation } from "../operation.js";
import {
  MAX_TIMELINE_WINDOW_DAYS,
  rfc3339Query,
  TIMELINE_EVENT_TYPES,
  TimelineEventsSchema,
} from "./schemas.js";

export const listTimelineEvents = defineOperation({
  method: "get",
  path: "/api/v1/timeline/events",
  operationId: "listTimelineEvents",
  summary: "List timeline events",
  description:
    "Events between start_time and end_time, newest first, derived from collected configuration snapshots, " +
    "server restarts, alerts and blackouts, on the connections the caller can see. " +
    `The window may span at most ${MAX_TIMELINE_WINDOW_DAYS} days (a longer one is a 400).`,
  tag: "timeline",
  access: {
    note: "Events of connections the caller cannot see, and blackouts of clusters or groups without such a connection, are left out.",
  },
  request: {
    query: z.object({
      start_time: rfc3339Query("start_time"),
      end_time: rfc3339Query("end_time"),
      connection_id: connectionIdQuery(),
      connection_ids: connectionIdsQuery(),
      event_types: csvQuery("Only events of these types (comma-separated on the wire)", TIMELINE_EVENT_TYPES),
      limit: positiveLimitQuery("Default 500, at most 1000"),
    }),
  },
  responses: { 200: jsonResponse(TimelineEventsSchema, "Events") },
  errors: [400],
});
