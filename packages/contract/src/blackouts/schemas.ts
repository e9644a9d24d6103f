import { z } from "@hono/zod-openapi";
import { enumQuery, idParam, lenientIntQuery, message, pageLimitQuery, TimestampSchema } from "../common.js";

export const BLACKOUT_SCOPES = ["estate", "group", "cluster", "server"] as const;

const optionalId = z.number(message("Request failed")).int(message("Request failed")).nullable().optional();

/** Scope fields of blackouts and schedules; which ids a scope needs is checked by the API. */
export const blackoutScopeFields = {
  scope: z
    .string(message("scope is required"))
    .openapi({ description: "estate, group, cluster or server", example: "server" }),
  group_id: optionalId.openapi({ description: "Cluster group (group scope)" }),
  cluster_id: optionalId.openapi({ description: "Cluster (cluster scope)" }),
  connection_id: optionalId.openapi({ description: "Connection (server scope)" }),
  database_name: z
    .string()
    .nullable()
    .optional()
    .openapi({ description: "Only this database of the server" }),
};

export const blackoutScopeOutput = {
  scope: z.string(),
  group_id: z.number().int().nullable(),
  cluster_id: z.number().int().nullable(),
  connection_id: z.number().int().nullable(),
  database_name: z.string().nullable(),
};

/** Paging of the blackout and schedule listings. */
export const BLACKOUT_PAGING = { defaultSize: 100, cap: 1000 };

/** Filters and paging of the blackout and schedule listings. */
export const blackoutListQuery = {
  scope: enumQuery(
    BLACKOUT_SCOPES,
    "Invalid scope: must be estate, group, cluster or server",
    "Only blackouts of this scope",
  ),
  group_id: lenientIntQuery(),
  cluster_id: lenientIntQuery(),
  connection_id: lenientIntQuery(),
  limit: pageLimitQuery(BLACKOUT_PAGING),
  offset: lenientIntQuery(),
};

export const BlackoutSchema = z
  .object({
    id: z.number().int(),
    ...blackoutScopeOutput,
    reason: z.string(),
    start_time: TimestampSchema,
    end_time: TimestampSchema,
    created_by: z.string(),
    created_at: TimestampSchema,
    is_active: z.boolean().openapi({ description: "start_time ≤ now ≤ end_time" }),
  })
  .openapi("Blackout");

export const BlackoutListSchema = z
  .object({ blackouts: z.array(BlackoutSchema), total_count: z.number().int() })
  .openapi("BlackoutList");

export const BlackoutIdParamsSchema = z.object({ id: idParam("Invalid blackout ID") });

const timeField = (name: string) =>
  z
    .string(message(`Invalid ${name} format, expected RFC3339`))
    .openapi({ format: "date-time", example: "2026-11-22T02:00:00Z" });

export const BlackoutCreateRequestSchema = z
  .object({
    ...blackoutScopeFields,
    reason: z.string().optional().default(""),
    start_time: timeField("start_time"),
    end_time: timeField("end_time"),
  })
  .openapi("BlackoutCreateRequest");

export const BlackoutUpdateRequestSchema = z
  .object({ reason: z.string().optional(), end_time: timeField("end_time").optional() })
  .openapi("BlackoutUpdateRequest");
