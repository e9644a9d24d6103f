import { listTimelineEvents, TIMELINE_EVENT_TYPES } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { type EventType, timelineEvents } from "../../timeline/events.js";

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 1000;

export function registerListTimelineEvents(app: App): void {
  app.openapi(guarded(listTimelineEvents, {}), async (c) => {
    const query = c.req.valid("query");
    if (!query.start_time) {
      throw new ApiError(400, "start_time is required");
    }
    if (!query.end_time) {
      throw new ApiError(400, "end_time is required");
    }
    if (query.end_time <= query.start_time) {
      throw new ApiError(400, "end_time must be after start_time");
    }
    const known = new Set<string>(TIMELINE_EVENT_TYPES);
    for (const type of query.event_types ?? []) {
      if (!known.has(type)) {
        throw new ApiError(400, `Invalid event_type: ${type}`);
      }
    }
    const types = new Set(
      (query.event_types?.length ? query.event_types : TIMELINE_EVENT_TYPES) as EventType[],
    );
    const { datastore, logger } = c.get("services");
    const visible = await c.get("access").visibleConnections();
    const requested =
      query.connection_ids ?? (query.connection_id === undefined ? undefined : [query.connection_id]);
    const all = await datastore.sql<
      { id: number; name: string }[]
    >`select id, name from connections order by id`;
    const readable = visible.all ? all.map((row) => row.id) : visible.ids;
    // Connections the caller cannot see are left out, as alerts are.
    const ids = requested ? requested.filter((id) => readable.includes(id)) : readable;
    const events = await timelineEvents(
      datastore.sql,
      { connectionIds: ids, start: query.start_time, end: query.end_time },
      types,
      logger,
    );
    const names = new Map(all.map((row) => [row.id, row.name]));
    const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    return c.json(
      {
        events: events.slice(0, limit).map((event) => ({
          ...event,
          server_name: event.connection_id === 0 ? "All Servers" : (names.get(event.connection_id) ?? ""),
        })),
        total_count: events.length,
      },
      200,
    );
  });
}
