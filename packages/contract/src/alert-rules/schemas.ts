import { z } from "@hono/zod-openapi";
import { AlertOperatorSchema, AlertSeveritySchema } from "../alerts/schemas.js";
import { idParam, message, TimestampSchema } from "../common.js";

/** The 403 text of every rule and override change, the reference's. */
export const manageAlertRulesRefusal = "Permission denied: you do not have permission to manage alert rules";

/** What a rule is and does by default, in both the rule and the override listings. */
export const alertRuleDefaultFields = {
  name: z.string(),
  description: z.string(),
  category: z.string(),
  metric_name: z.string(),
  metric_unit: z.string().nullable(),
  default_operator: z.string(),
  default_threshold: z.number(),
  default_severity: z.enum(["info", "warning", "critical"]),
  default_enabled: z.boolean(),
};

export const AlertRuleSchema = z
  .object({
    id: z.number().int(),
    ...alertRuleDefaultFields,
    default_duration_seconds: z
      .number()
      .int()
      .openapi({ description: "How long the condition must hold before the alert fires (0: at once)" }),
    required_extension: z.string().nullable(),
    is_built_in: z.boolean(),
    created_at: TimestampSchema,
  })
  .openapi("AlertRule");

export const AlertRuleIdParamsSchema = z.object({ id: idParam("Invalid alert rule ID") });

/** How long a condition must hold, in seconds (at most a week). */
export const alertDurationField = z
  .number(message("Request failed"))
  .int(message("Request failed"))
  .min(0, message("Request failed"))
  .max(86_400 * 7, message("Request failed"));

export const AlertRuleUpdateSchema = z
  .object({
    default_operator: AlertOperatorSchema.optional(),
    default_threshold: z.number(message("Request failed")).optional(),
    default_severity: AlertSeveritySchema.optional(),
    default_enabled: z.boolean(message("Request failed")).optional(),
    default_duration_seconds: alertDurationField.optional(),
  })
  .openapi("AlertRuleUpdate");
