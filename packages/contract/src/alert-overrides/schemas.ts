import { z } from "@hono/zod-openapi";
import { AlertRuleSchema, alertDurationField, alertRuleDefaultFields } from "../alert-rules/schemas.js";
import { AlertOperatorSchema, AlertSeveritySchema } from "../alerts/schemas.js";
import { idParam, message } from "../common.js";

export const OverrideScopeSchema = z
  .enum(["server", "cluster", "group"], message("Invalid scope: must be server, cluster, or group"))
  .openapi({ description: "server (a connection), cluster or group" });

export const OverrideScopeParamsSchema = z.object({
  scope: OverrideScopeSchema,
  scopeId: idParam("Invalid scope ID"),
});
export const OverrideRuleParamsSchema = OverrideScopeParamsSchema.extend({
  ruleId: idParam("Invalid rule ID"),
});

export const AlertOverrideSchema = z
  .object({
    rule_id: z.number().int(),
    ...alertRuleDefaultFields,
    default_duration_seconds: z.number().int(),
    has_override: z.boolean(),
    override_operator: z.string().nullable(),
    override_threshold: z.number().nullable(),
    override_severity: z.string().nullable(),
    override_enabled: z.boolean().nullable(),
    override_duration_seconds: z.number().int().nullable(),
  })
  .openapi("AlertOverride");

export const OverrideDetailSchema = z
  .object({
    operator: z.string(),
    threshold: z.number(),
    severity: z.string(),
    enabled: z.boolean(),
    duration_seconds: z.number().int().nullable(),
  })
  .openapi("OverrideDetail");

export const AlertOverrideUpdateSchema = z
  .object({
    operator: AlertOperatorSchema,
    threshold: z.number(message("Request failed")),
    severity: AlertSeveritySchema,
    enabled: z.boolean(message("Request failed")),
    duration_seconds: alertDurationField.nullable().optional(),
  })
  .openapi("AlertOverrideUpdate");

export const OverrideContextSchema = z
  .object({
    hierarchy: z.object({
      connection_id: z.number().int(),
      cluster_id: z.number().int().nullable(),
      group_id: z.number().int().nullable(),
      server_name: z.string(),
      cluster_name: z.string().nullable(),
      group_name: z.string().nullable(),
    }),
    rule: AlertRuleSchema,
    overrides: z.object({
      server: OverrideDetailSchema.nullable(),
      cluster: OverrideDetailSchema.nullable(),
      group: OverrideDetailSchema.nullable(),
    }),
  })
  .openapi("OverrideContextResponse");
