import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, errorResponses, idParam, jsonResponse, message, TimestampSchema } from "../common.js";
import { tags } from "../tags.js";
import { StatusResponseSchema } from "./alerts.js";

const tag = [tags.blackouts.name];

const optionalId = z.number(message("Request failed")).int(message("Request failed")).nullable().optional();

/** Scope fields of blackouts and schedules; which ids a scope needs is checked by the API. */
const scopeFields = {
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

const scopeOutput = {
  scope: z.string(),
  group_id: z.number().int().nullable(),
  cluster_id: z.number().int().nullable(),
  connection_id: z.number().int().nullable(),
  database_name: z.string().nullable(),
};

export const BlackoutSchema = z
  .object({
    id: z.number().int(),
    ...scopeOutput,
    reason: z.string(),
    start_time: TimestampSchema,
    end_time: TimestampSchema,
    created_by: z.string(),
    created_at: TimestampSchema,
    is_active: z.boolean().openapi({ description: "start_time ≤ now ≤ end_time" }),
  })
  .openapi("Blackout");

const listQuery = {
  scope: z.string().optional(),
  group_id: z.string().optional().openapi({ type: "integer" }),
  cluster_id: z.string().optional().openapi({ type: "integer" }),
  connection_id: z.string().optional().openapi({ type: "integer" }),
  limit: z
    .string()
    .optional()
    .openapi({ type: "integer", description: "Page size (default 100, at most 1000)" }),
  offset: z.string().optional().openapi({ type: "integer" }),
};

const BlackoutIdParams = z.object({ id: idParam("Invalid blackout ID") });

export const listBlackouts = createRoute({
  method: "get",
  path: "/api/v1/blackouts",
  operationId: "listBlackouts",
  summary: "List blackout windows",
  description:
    "Newest start first. `active=true` (or 1) keeps the windows active now, any other value those that are not.",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({ ...listQuery, active: z.string().optional().openapi({ type: "boolean" }) }),
  },
  responses: {
    200: jsonResponse(
      z.object({ blackouts: z.array(BlackoutSchema), total_count: z.number().int() }).openapi("BlackoutList"),
      "Blackouts",
    ),
    ...errorResponses(401),
  },
});

const timeField = (name: string) =>
  z
    .string(message(`Invalid ${name} format, expected RFC3339`))
    .openapi({ format: "date-time", example: "2026-11-22T02:00:00Z" });

export const createBlackout = createRoute({
  method: "post",
  path: "/api/v1/blackouts",
  operationId: "createBlackout",
  summary: "Create a blackout",
  description: "Requires manage_blackouts. Past and future windows are allowed.",
  tags: tag,
  security: authenticated,
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              ...scopeFields,
              reason: z.string().optional().default(""),
              start_time: timeField("start_time"),
              end_time: timeField("end_time"),
            })
            .openapi("BlackoutCreateRequest"),
        },
      },
    },
  },
  responses: {
    201: jsonResponse(BlackoutSchema, "Created"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const getBlackout = createRoute({
  method: "get",
  path: "/api/v1/blackouts/{id}",
  operationId: "getBlackout",
  summary: "Get a blackout",
  tags: tag,
  security: authenticated,
  request: { params: BlackoutIdParams },
  responses: { 200: jsonResponse(BlackoutSchema, "Blackout"), ...errorResponses(400, 401, 404) },
});

export const updateBlackout = createRoute({
  method: "put",
  path: "/api/v1/blackouts/{id}",
  operationId: "updateBlackout",
  summary: "Update a blackout",
  description: "Changes the reason or the end. Requires manage_blackouts.",
  tags: tag,
  security: authenticated,
  request: {
    params: BlackoutIdParams,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({ reason: z.string().optional(), end_time: timeField("end_time").optional() })
            .openapi("BlackoutUpdateRequest"),
        },
      },
    },
  },
  responses: { 200: jsonResponse(BlackoutSchema, "Updated"), ...errorResponses(400, 401, 403, 404) },
});

export const deleteBlackout = createRoute({
  method: "delete",
  path: "/api/v1/blackouts/{id}",
  operationId: "deleteBlackout",
  summary: "Delete a blackout",
  description: "Requires manage_blackouts.",
  tags: tag,
  security: authenticated,
  request: { params: BlackoutIdParams },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted"), ...errorResponses(400, 401, 403, 404) },
});

export const stopBlackout = createRoute({
  method: "post",
  path: "/api/v1/blackouts/{id}/stop",
  operationId: "stopBlackout",
  summary: "Stop an active blackout early",
  description: "Ends the window now (a future window is ended before it starts). Requires manage_blackouts.",
  tags: tag,
  security: authenticated,
  request: { params: BlackoutIdParams },
  responses: { 200: jsonResponse(BlackoutSchema, "Stopped"), ...errorResponses(400, 401, 403, 404) },
});

// ---------------------------------------------------------------- schedules

export const BlackoutScheduleSchema = z
  .object({
    id: z.number().int(),
    ...scopeOutput,
    name: z.string(),
    cron_expression: z.string(),
    duration_minutes: z.number().int(),
    timezone: z.string(),
    reason: z.string(),
    enabled: z.boolean(),
    created_by: z.string(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("BlackoutSchedule");

const ScheduleRequestSchema = z
  .object({
    ...scopeFields,
    name: z.string(message("Name is required")).trim().min(1, message("Name is required")),
    cron_expression: z
      .string(message("Cron expression is required"))
      .trim()
      .min(1, message("Cron expression is required"))
      .openapi({ description: "5 fields: minute hour day-of-month month day-of-week", example: "0 2 * * 0" }),
    duration_minutes: z
      .number(message("Duration minutes must be positive"))
      .int(message("Duration minutes must be positive"))
      .positive(message("Duration minutes must be positive")),
    timezone: z.string().optional().openapi({ description: "IANA time zone (default UTC)" }),
    reason: z.string().optional().default(""),
    enabled: z.boolean().optional().openapi({ description: "Defaults to true" }),
  })
  .openapi("BlackoutScheduleRequest");

const ScheduleIdParams = z.object({ id: idParam("Invalid blackout schedule ID") });

export const listBlackoutSchedules = createRoute({
  method: "get",
  path: "/api/v1/blackout-schedules",
  operationId: "listBlackoutSchedules",
  summary: "List schedules",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({ ...listQuery, enabled: z.string().optional().openapi({ type: "boolean" }) }),
  },
  responses: {
    200: jsonResponse(
      z
        .object({ schedules: z.array(BlackoutScheduleSchema), total_count: z.number().int() })
        .openapi("BlackoutScheduleList"),
      "Schedules",
    ),
    ...errorResponses(401),
  },
});

export const createBlackoutSchedule = createRoute({
  method: "post",
  path: "/api/v1/blackout-schedules",
  operationId: "createBlackoutSchedule",
  summary: "Create a schedule",
  description: "Requires manage_blackouts. The cron expression and the time zone are checked.",
  tags: tag,
  security: authenticated,
  request: {
    body: { required: true, content: { "application/json": { schema: ScheduleRequestSchema } } },
  },
  responses: { 201: jsonResponse(BlackoutScheduleSchema, "Created"), ...errorResponses(400, 401, 403, 404) },
});

export const getBlackoutSchedule = createRoute({
  method: "get",
  path: "/api/v1/blackout-schedules/{id}",
  operationId: "getBlackoutSchedule",
  summary: "Get a schedule",
  tags: tag,
  security: authenticated,
  request: { params: ScheduleIdParams },
  responses: { 200: jsonResponse(BlackoutScheduleSchema, "Schedule"), ...errorResponses(400, 401, 404) },
});

export const updateBlackoutSchedule = createRoute({
  method: "put",
  path: "/api/v1/blackout-schedules/{id}",
  operationId: "updateBlackoutSchedule",
  summary: "Update a schedule",
  description: "Replaces the whole schedule. Requires manage_blackouts.",
  tags: tag,
  security: authenticated,
  request: {
    params: ScheduleIdParams,
    body: { required: true, content: { "application/json": { schema: ScheduleRequestSchema } } },
  },
  responses: { 200: jsonResponse(BlackoutScheduleSchema, "Updated"), ...errorResponses(400, 401, 403, 404) },
});

export const deleteBlackoutSchedule = createRoute({
  method: "delete",
  path: "/api/v1/blackout-schedules/{id}",
  operationId: "deleteBlackoutSchedule",
  summary: "Delete a schedule",
  description: "Requires manage_blackouts. Windows it already opened stay.",
  tags: tag,
  security: authenticated,
  request: { params: ScheduleIdParams },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted"), ...errorResponses(400, 401, 403, 404) },
});

export const blackoutRoutes = {
  listBlackouts,
  createBlackout,
  getBlackout,
  updateBlackout,
  deleteBlackout,
  stopBlackout,
  listBlackoutSchedules,
  createBlackoutSchedule,
  getBlackoutSchedule,
  updateBlackoutSchedule,
  deleteBlackoutSchedule,
} as const;
