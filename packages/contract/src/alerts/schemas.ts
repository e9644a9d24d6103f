import { z } from "@hono/zod-openapi";
import {
  commaListOpenApi,
  enumQuery,
  lenientBoolQuery,
  lenientIntQuery,
  message,
  pageLimitQuery,
  TimestampSchema,
} from "../common.js";

export const ALERT_STATUSES = ["active", "acknowledged", "cleared"] as const;
export const ALERT_SEVERITIES = ["info", "warning", "critical"] as const;
export const ALERT_TYPES = ["threshold", "anomaly", "connection"] as const;

export const AlertSeveritySchema = z
  .enum(["info", "warning", "critical"], message("Request failed"))
  .openapi("AlertSeverity");
export const AlertOperatorSchema = z
  .enum([">", ">=", "<", "<=", "==", "!="], message("Request failed"))
  .openapi("AlertOperator");
export const StatusResponseSchema = z.object({ status: z.string() }).openapi("StatusResponse");

export const AlertSchema = z
  .object({
    id: z.number().int(),
    alert_type: z.enum(ALERT_TYPES),
    rule_id: z.number().int().nullable(),
    connection_id: z.number().int(),
    database_name: z.string().nullable(),
    object_name: z.string().nullable().openapi({ description: "Table or other object the alert is about" }),
    probe_name: z.string().nullable(),
    metric_name: z.string().nullable(),
    metric_value: z.number().nullable(),
    metric_unit: z.string().nullable().openapi({ description: "Unit of the rule's metric" }),
    threshold_value: z.number().nullable(),
    operator: z.string().nullable(),
    severity: z.enum(ALERT_SEVERITIES),
    title: z.string(),
    description: z.string(),
    message: z.string().openapi({ description: "Same as description (name used by older clients)" }),
    correlation_id: z.string().nullable(),
    status: z.enum(ALERT_STATUSES),
    triggered_at: TimestampSchema,
    fired_at: TimestampSchema.openapi({ description: "Same as triggered_at (name used by older clients)" }),
    cleared_at: TimestampSchema.nullable(),
    last_updated: TimestampSchema.nullable(),
    anomaly_score: z.number().nullable(),
    anomaly_details: z.record(z.string(), z.unknown()).nullable(),
    server_name: z.string().openapi({ description: 'Name of the connection, or "Unknown"' }),
    acknowledged_at: TimestampSchema.nullable(),
    acknowledged_by: z.string().nullable(),
    ack_message: z.string().nullable(),
    false_positive: z.boolean(),
    ai_analysis: z.string().nullable(),
    ai_analysis_metric_value: z.number().nullable(),
  })
  .openapi("Alert");

/** Paging of the alert listing. */
export const ALERT_PAGING = { defaultSize: 100, cap: 1000 };

/**
 * Who sees an alert: one who sees its connection, or for a whole-server alert (a condition of a
 * server or its host, kept once per server) one who sees any monitored connection of that server.
 */
export const ALERT_VISIBILITY =
  "An alert is visible through its connection; a whole-server alert (a condition of the server or its " +
  "host, raised once per server) through every monitored connection of that server (same host, hostaddr " +
  "and port).";

/** The access note of an operation on one alert. */
export const ONE_ALERT_ACCESS = {
  note: `${ALERT_VISIBILITY} The alert must be visible to the caller (403 otherwise).`,
};

export const AlertListQuerySchema = z.object({
  connection_id: lenientIntQuery({ description: "One connection" }),
  connection_ids: z
    .string()
    .optional()
    .openapi(
      commaListOpenApi({ type: "integer", minimum: 0 }, "Connection IDs (comma-separated on the wire)"),
    ),
  status: enumQuery(
    ALERT_STATUSES,
    "Invalid status: must be active, acknowledged or cleared",
    "Alert status",
  ),
  exclude_cleared: lenientBoolQuery({ description: "true or 1: only open alerts" }),
  severity: enumQuery(
    ALERT_SEVERITIES,
    "Invalid severity: must be info, warning or critical",
    "Alert severity",
  ),
  alert_type: enumQuery(
    ALERT_TYPES,
    "Invalid alert_type: must be threshold, anomaly or connection",
    "Alert type",
  ),
  start_time: z.string().optional().openapi({ format: "date-time", description: "Triggered at or after" }),
  end_time: z.string().optional().openapi({ format: "date-time", description: "Triggered at or before" }),
  limit: pageLimitQuery(ALERT_PAGING),
  offset: lenientIntQuery(),
});

export const AlertListResultSchema = z
  .object({ alerts: z.array(AlertSchema), total: z.number().int() })
  .openapi("AlertListResult");

export const AlertCountsResultSchema = z
  .object({
    total: z.number().int(),
    by_server: z.record(z.string(), z.number().int()),
    by_cluster: z
      .record(z.string(), z.number().int())
      .openapi({ description: "Active alerts by cluster ID (connections in a cluster)" }),
    counts: z
      .record(
        z.string(),
        z.object({ critical: z.number().int(), warning: z.number().int(), info: z.number().int() }),
      )
      .openapi({ description: "Active alerts by connection ID and severity" }),
  })
  .openapi("AlertCountsResult");

/** `alert_id` of request bodies. */
export const alertIdField = z
  .number(message("alert_id is required"))
  .int(message("alert_id is required"))
  .positive(message("alert_id is required"));

export const AcknowledgeRequestSchema = z
  .object({
    alert_id: alertIdField,
    message: z.string().optional(),
    false_positive: z.boolean().optional(),
  })
  .openapi("AcknowledgeRequest");

export const SaveAnalysisRequestSchema = z
  .object({
    alert_id: alertIdField,
    analysis: z.string(message("analysis is required")).min(1, message("analysis is required")),
    metric_value: z.number().nullable().optional(),
  })
  .openapi("SaveAnalysisRequest");
