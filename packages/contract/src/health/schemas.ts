import { z } from "@hono/zod-openapi";
import { TimestampSchema } from "../common.js";

export const HEALTH_STATUSES = ["ok", "warning", "critical", "unknown"] as const;

export const HealthStatusSchema = z.enum(HEALTH_STATUSES).openapi("HealthStatus", {
  description:
    "ok, warning or critical against the check's thresholds; unknown when no fresh collected data exists to judge by",
});

export const HealthThresholdSchema = z
  .object({
    warning: z.number(),
    critical: z.number().nullable().openapi({ description: "null: the check never reaches critical" }),
    direction: z.enum(["above", "below"]).openapi({
      description: "above: a value at or above a threshold reaches its status; below: at or below it",
    }),
  })
  .openapi("HealthThreshold");

export const HealthCheckSchema = z
  .object({
    name: z.string().openapi({ example: "sequences" }),
    title: z.string().openapi({ example: "Sequences near exhaustion" }),
    category: z.string().openapi({ example: "sequences" }),
    status: HealthStatusSchema,
    value: z
      .number()
      .nullable()
      .openapi({ description: "null when unknown or when there is nothing to judge" }),
    unit: z.enum(["count", "bytes", "percent", "seconds", "transactions"]),
    measures: z.string().openapi({ description: "What the value is" }),
    threshold: HealthThresholdSchema,
    remedy: z.string().openapi({ description: "What to do when the check is not ok" }),
    findings: z
      .array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])))
      .openapi({
        description: "The objects behind the value (at most 20): tables, indexes, sessions, slots…",
      }),
    evaluated_at: TimestampSchema.nullable(),
    changed_at: TimestampSchema.nullable().openapi({
      description: "When the check reached its current status",
    }),
  })
  .openapi("HealthCheck");

export const ConnectionHealthSchema = z
  .object({
    connection_id: z.number().int(),
    connection_name: z.string(),
    status: HealthStatusSchema.openapi({
      description: "The worst of the checks: critical, then warning, then unknown, then ok",
    }),
    evaluated_at: TimestampSchema.nullable(),
    checks: z.array(HealthCheckSchema),
  })
  .openapi("ConnectionHealth");

const statusCounts = {
  ok: z.number().int(),
  warning: z.number().int(),
  critical: z.number().int(),
  unknown: z.number().int(),
};

export const FleetHealthSchema = z
  .object({
    scope: z.enum(["estate", "cluster", "group"]),
    scope_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The cluster or group; null for the estate" }),
    status: HealthStatusSchema.openapi({
      description: "The worst status of the connections; ok when there are none",
    }),
    connection_count: z.number().int(),
    status_counts: z.object(statusCounts).openapi({ description: "Connections by their overall status" }),
    checks: z
      .array(z.object({ name: z.string(), title: z.string(), ...statusCounts }))
      .openapi({ description: "Per check, the connections by that check's status" }),
    connections: z
      .array(
        z.object({
          connection_id: z.number().int(),
          connection_name: z.string(),
          status: HealthStatusSchema,
          critical_checks: z.array(z.string()),
          warning_checks: z.array(z.string()),
          evaluated_at: TimestampSchema.nullable(),
        }),
      )
      .openapi({ description: "Worst first, then by name" }),
  })
  .openapi("FleetHealth");
