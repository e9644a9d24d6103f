import { z } from "@hono/zod-openapi";
import { blackoutScopeFields, blackoutScopeOutput } from "../blackouts/schemas.js";
import { idParam, message, TimestampSchema } from "../common.js";

export const BlackoutScheduleSchema = z
  .object({
    id: z.number().int(),
    ...blackoutScopeOutput,
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

export const BlackoutScheduleListSchema = z
  .object({ schedules: z.array(BlackoutScheduleSchema), total_count: z.number().int() })
  .openapi("BlackoutScheduleList");

export const BlackoutScheduleRequestSchema = z
  .object({
    ...blackoutScopeFields,
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

export const BlackoutScheduleIdParamsSchema = z.object({ id: idParam("Invalid blackout schedule ID") });
