import { z } from "@hono/zod-openapi";
import { commaListOpenApi, lenientBoolQuery } from "../common.js";
import { eventStreamSchema } from "../event-stream.js";

const severity = z.enum(["info", "warning", "critical"]);

export const OverviewServerSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    status: z.enum(["online", "offline", "warning"]),
    role: z.string().nullable(),
    active_alert_count: z.number().int(),
  })
  .openapi("OverviewServer");

export const OverviewBlackoutSchema = z
  .object({
    scope: z.string(),
    reason: z.string(),
    start_time: z.string(),
    end_time: z.string(),
  })
  .openapi("OverviewBlackout");

export const OverviewSnapshotSchema = z
  .object({
    timestamp: z.string(),
    server_total: z.number().int(),
    server_online: z.number().int(),
    server_offline: z.number().int(),
    server_warning: z.number().int().openapi({ description: "Reachable servers with active alerts" }),
    servers: z.array(OverviewServerSchema),
    alert_total: z.number().int(),
    alert_critical: z.number().int(),
    alert_warning: z.number().int(),
    alert_info: z.number().int(),
    top_alerts: z
      .array(z.object({ title: z.string(), server_name: z.string(), severity }))
      .openapi({ description: "At most 10, most severe first" }),
    active_blackouts: z.array(OverviewBlackoutSchema),
    upcoming_blackouts: z.array(OverviewBlackoutSchema).openapi({ description: "Starting within 24 hours" }),
    recent_events: z
      .array(
        z.object({
          event_type: z.string(),
          server_name: z.string(),
          occurred_at: z.string(),
          severity: z.string(),
          title: z.string(),
          summary: z.string(),
        }),
      )
      .openapi({ description: "Timeline events of the last 24 hours, newest first" }),
  })
  .openapi("OverviewSnapshot");

export const OverviewSchema = z
  .object({
    summary: z.string().openapi({ description: "Plain text written by the configured chat model" }),
    generated_at: z.string(),
    stale_at: z.string().openapi({ description: "generated_at plus five minutes" }),
    snapshot: OverviewSnapshotSchema,
    restart_detected: z
      .literal(true)
      .optional()
      .openapi({ description: "Present when a server restart prompted it" }),
  })
  .openapi("Overview");

/** The events of GET /api/v1/overview/stream: each new overview. */
export const overviewStreamEvents = { overview: OverviewSchema } as const;

/** One event of the overview stream, for the document and the client's types. */
export const OverviewStreamSchema = eventStreamSchema(
  "OverviewStreamEvent",
  "One event of the overview stream: `overview`, the object GET /api/v1/overview returns (its `id:` line is the overview's generated_at).",
  overviewStreamEvents,
);

export const OverviewPendingSchema = z
  .object({
    status: z.enum(["generating", "empty"]).openapi({
      description:
        "generating: no estate summary yet; empty: the caller sees none of the requested connections",
    }),
    summary: z.null(),
  })
  .openapi("OverviewPending");

export const OVERVIEW_SCOPE_TYPES = ["server", "cluster", "group"] as const;

/** The query of both overview operations; the service checks it with the reference's messages. */
export const OverviewQuerySchema = z.object({
  connection_ids: z
    .string()
    .optional()
    .openapi(
      commaListOpenApi(
        { type: "integer", minimum: 1 },
        "Connection ids, a selection (comma-separated on the wire)",
      ),
    ),
  // Checked by the service, after the check for a chat provider (the reference's order), which
  // answers a value outside the set with a 400; the document states the set.
  scope_type: z
    .string()
    .optional()
    .openapi({ enum: [...OVERVIEW_SCOPE_TYPES], description: "server, cluster or group (with scope_id)" }),
  scope_id: z.string().optional().openapi({ description: "Positive integer (with scope_type)" }),
  scope_name: z.string().optional().openapi({ description: "Display name of the scope, for the summary" }),
});

export const GetOverviewQuerySchema = OverviewQuerySchema.extend({
  refresh: lenientBoolQuery({ description: "true: regenerate the estate summary now" }),
});
