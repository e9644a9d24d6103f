import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, errorResponses, jsonResponse, message } from "../common.js";
import { tags } from "../tags.js";
import { connectionIdQuery, connectionIdsQuery } from "./metrics.js";

export const TIMELINE_EVENT_TYPES = [
  "config_change",
  "hba_change",
  "ident_change",
  "restart",
  "alert_fired",
  "alert_cleared",
  "alert_acknowledged",
  "extension_change",
  "blackout_started",
  "blackout_ended",
] as const;

const rfc3339 = (name: string) =>
  z
    .string()
    .refine(
      (text) =>
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(text) &&
        !Number.isNaN(Date.parse(text)),
      message(`Invalid ${name} format, expected RFC3339`),
    )
    .transform((text) => new Date(text))
    .optional()
    .openapi({ type: "string", format: "date-time", description: `Required (RFC 3339)` });

export const TimelineEventSchema = z
  .object({
    id: z.string().openapi({ example: "config-3-1763800000" }),
    event_type: z.enum(TIMELINE_EVENT_TYPES),
    connection_id: z.number().int().openapi({ description: "0 for blackouts not scoped to one server" }),
    server_name: z.string(),
    occurred_at: z.string(),
    severity: z.string().openapi({ description: "info, warning, or the alert's severity" }),
    title: z.string(),
    summary: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("TimelineEvent");

export const listTimelineEvents = createRoute({
  method: "get",
  path: "/api/v1/timeline/events",
  operationId: "listTimelineEvents",
  summary: "List timeline events",
  description:
    "Events between start_time and end_time, newest first, derived from collected configuration snapshots, " +
    "server restarts, alerts and blackouts, on the connections the caller can see.",
  tags: [tags.timeline.name],
  security: authenticated,
  request: {
    query: z.object({
      start_time: rfc3339("start_time"),
      end_time: rfc3339("end_time"),
      connection_id: connectionIdQuery(),
      connection_ids: connectionIdsQuery(),
      event_types: z
        .string()
        .transform((text) =>
          text
            .split(",")
            .map((part) => part.trim())
            .filter(Boolean),
        )
        .optional()
        .openapi({ type: "string", description: `Comma-separated: ${TIMELINE_EVENT_TYPES.join(", ")}` }),
      limit: z
        .string()
        .regex(/^0*[1-9]\d{0,8}$/, message("Invalid limit: must be a positive integer"))
        .transform(Number)
        .optional()
        .openapi({ type: "integer", description: "Default 500, at most 1000" }),
    }),
  },
  responses: {
    200: jsonResponse(
      z
        .object({ events: z.array(TimelineEventSchema), total_count: z.number().int() })
        .openapi("TimelineEvents"),
      "Events",
    ),
    ...errorResponses(400, 401),
  },
});

export const timelineRoutes = { listTimelineEvents } as const;
