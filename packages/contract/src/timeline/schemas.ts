import { z } from "@hono/zod-openapi";
import { message } from "../common.js";

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
  "health_check_changed",
  "lock_storm",
] as const;

export type TimelineEventType = (typeof TIMELINE_EVENT_TYPES)[number];

/** The longest window one request may ask for: events are derived on each request, so bound the work. */
export const MAX_TIMELINE_WINDOW_DAYS = 31;

/** An optional RFC 3339 time in the query string; malformed is a 400 naming the parameter. */
export const rfc3339Query = (name: string, description = "Required (RFC 3339)") =>
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
    .openapi({ type: "string", format: "date-time", description });

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

export const TimelineEventsSchema = z
  .object({ events: z.array(TimelineEventSchema), total_count: z.number().int() })
  .openapi("TimelineEvents");
