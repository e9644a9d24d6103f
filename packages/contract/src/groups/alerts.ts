import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, errorResponses, idParam, jsonResponse, message, TimestampSchema } from "../common.js";
import { tags } from "../tags.js";

const tag = [tags.alerts.name];

export const AlertSeveritySchema = z
  .enum(["info", "warning", "critical"], message("Request failed"))
  .openapi("AlertSeverity");
export const AlertOperatorSchema = z
  .enum([">", ">=", "<", "<=", "==", "!="], message("Request failed"))
  .openapi("AlertOperator");
export const StatusResponseSchema = z.object({ status: z.string() }).openapi("StatusResponse");

// ---------------------------------------------------------------- alerts

export const AlertSchema = z
  .object({
    id: z.number().int(),
    alert_type: z.enum(["threshold", "anomaly", "connection"]),
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
    severity: z.enum(["critical", "warning", "info"]),
    title: z.string(),
    description: z.string(),
    message: z.string().openapi({ description: "Same as description (name used by older clients)" }),
    correlation_id: z.string().nullable(),
    status: z.enum(["active", "acknowledged", "cleared"]),
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

export const AlertListQuerySchema = z.object({
  connection_id: z.string().optional().openapi({ type: "integer", description: "One connection" }),
  connection_ids: z.string().optional().openapi({ description: "Comma-separated connection IDs" }),
  status: z.string().optional().openapi({ description: "active, acknowledged or cleared" }),
  exclude_cleared: z
    .string()
    .optional()
    .openapi({ type: "boolean", description: "true or 1: only open alerts" }),
  severity: z.string().optional().openapi({ description: "info, warning or critical" }),
  alert_type: z.string().optional().openapi({ description: "threshold, anomaly or connection" }),
  start_time: z.string().optional().openapi({ format: "date-time", description: "Triggered at or after" }),
  end_time: z.string().optional().openapi({ format: "date-time", description: "Triggered at or before" }),
  limit: z
    .string()
    .optional()
    .openapi({ type: "integer", description: "Page size (default 100, at most 1000)" }),
  offset: z.string().optional().openapi({ type: "integer" }),
});

export const listAlerts = createRoute({
  method: "get",
  path: "/api/v1/alerts",
  operationId: "listAlerts",
  summary: "List alerts with filters",
  description:
    "Alerts on the connections the caller can see, newest first. Malformed numbers and times in the " +
    "query are ignored, as the reference does.",
  tags: tag,
  security: authenticated,
  request: { query: AlertListQuerySchema },
  responses: {
    200: jsonResponse(
      z.object({ alerts: z.array(AlertSchema), total: z.number().int() }).openapi("AlertListResult"),
      "Alerts",
    ),
    ...errorResponses(401),
  },
});

export const alertCounts = createRoute({
  method: "get",
  path: "/api/v1/alerts/counts",
  operationId: "getAlertCounts",
  summary: "Alert counts by server",
  description: "Active alerts on visible connections, in total and by connection ID.",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(
      z
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
        .openapi("AlertCountsResult"),
      "Counts",
    ),
    ...errorResponses(401),
  },
});

const alertIdField = z
  .number(message("alert_id is required"))
  .int(message("alert_id is required"))
  .positive(message("alert_id is required"));

export const acknowledgeAlert = createRoute({
  method: "post",
  path: "/api/v1/alerts/acknowledge",
  operationId: "acknowledgeAlert",
  summary: "Acknowledge an alert",
  description: "An active alert becomes acknowledged; it needs access to the alert's connection.",
  tags: tag,
  security: authenticated,
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              alert_id: alertIdField,
              message: z.string().optional(),
              false_positive: z.boolean().optional(),
            })
            .openapi("AcknowledgeRequest"),
        },
      },
    },
  },
  responses: {
    200: jsonResponse(StatusResponseSchema, "Acknowledged"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const unacknowledgeAlert = createRoute({
  method: "delete",
  path: "/api/v1/alerts/acknowledge",
  operationId: "unacknowledgeAlert",
  summary: "Remove an acknowledgement",
  description: "An acknowledged alert becomes active again; its acknowledgements are deleted.",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({
      alert_id: z
        .string(message("alert_id query parameter is required"))
        .min(1, message("alert_id query parameter is required"))
        .regex(/^[1-9]\d{0,15}$/, message("Invalid alert_id"))
        .transform(Number)
        .openapi({ type: "integer" }),
    }),
  },
  responses: {
    200: jsonResponse(StatusResponseSchema, "Active again"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const saveAlertAnalysis = createRoute({
  method: "put",
  path: "/api/v1/alerts/analysis",
  operationId: "saveAlertAnalysis",
  summary: "Save an AI analysis for an alert",
  tags: tag,
  security: authenticated,
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              alert_id: alertIdField,
              analysis: z.string(message("analysis is required")).min(1, message("analysis is required")),
              metric_value: z.number().nullable().optional(),
            })
            .openapi("SaveAnalysisRequest"),
        },
      },
    },
  },
  responses: {
    200: jsonResponse(StatusResponseSchema, "Saved"),
    ...errorResponses(400, 401, 403, 404),
  },
});

// ---------------------------------------------------------------- rules

export const AlertRuleSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    category: z.string(),
    metric_name: z.string(),
    metric_unit: z.string().nullable(),
    default_operator: z.string(),
    default_threshold: z.number(),
    default_severity: z.enum(["info", "warning", "critical"]),
    default_enabled: z.boolean(),
    default_duration_seconds: z
      .number()
      .int()
      .openapi({ description: "How long the condition must hold before the alert fires (0: at once)" }),
    required_extension: z.string().nullable(),
    is_built_in: z.boolean(),
    created_at: TimestampSchema,
  })
  .openapi("AlertRule");

const RuleIdParams = z.object({ id: idParam("Invalid alert rule ID") });

export const listAlertRules = createRoute({
  method: "get",
  path: "/api/v1/alert-rules",
  operationId: "listAlertRules",
  summary: "List alert rules",
  description: "Every rule, ordered by category and name.",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(z.array(AlertRuleSchema), "Rules"),
    ...errorResponses(401),
  },
});

export const getAlertRule = createRoute({
  method: "get",
  path: "/api/v1/alert-rules/{id}",
  operationId: "getAlertRule",
  summary: "Get an alert rule",
  tags: tag,
  security: authenticated,
  request: { params: RuleIdParams },
  responses: {
    200: jsonResponse(AlertRuleSchema, "Rule"),
    ...errorResponses(400, 401, 404),
  },
});

const durationField = z
  .number(message("Request failed"))
  .int(message("Request failed"))
  .min(0, message("Request failed"))
  .max(86_400 * 7, message("Request failed"));

export const updateAlertRule = createRoute({
  method: "put",
  path: "/api/v1/alert-rules/{id}",
  operationId: "updateAlertRule",
  summary: "Update an alert rule's defaults",
  description: "Partial update of the defaults. Requires manage_alert_rules.",
  tags: tag,
  security: authenticated,
  request: {
    params: RuleIdParams,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              default_operator: AlertOperatorSchema.optional(),
              default_threshold: z.number(message("Request failed")).optional(),
              default_severity: AlertSeveritySchema.optional(),
              default_enabled: z.boolean(message("Request failed")).optional(),
              default_duration_seconds: durationField.optional(),
            })
            .openapi("AlertRuleUpdate"),
        },
      },
    },
  },
  responses: {
    200: jsonResponse(AlertRuleSchema, "Updated rule"),
    ...errorResponses(400, 401, 403, 404),
  },
});

// ---------------------------------------------------------------- overrides

export const OverrideScopeSchema = z
  .enum(["server", "cluster", "group"], message("Invalid scope: must be server, cluster, or group"))
  .openapi({ description: "server (a connection), cluster or group" });

const OverrideScopeParams = z.object({ scope: OverrideScopeSchema, scopeId: idParam("Invalid scope ID") });
const OverrideRuleParams = OverrideScopeParams.extend({ ruleId: idParam("Invalid rule ID") });

export const AlertOverrideSchema = z
  .object({
    rule_id: z.number().int(),
    name: z.string(),
    description: z.string(),
    category: z.string(),
    metric_name: z.string(),
    metric_unit: z.string().nullable(),
    default_operator: z.string(),
    default_threshold: z.number(),
    default_severity: z.enum(["info", "warning", "critical"]),
    default_enabled: z.boolean(),
    default_duration_seconds: z.number().int(),
    has_override: z.boolean(),
    override_operator: z.string().nullable(),
    override_threshold: z.number().nullable(),
    override_severity: z.string().nullable(),
    override_enabled: z.boolean().nullable(),
    override_duration_seconds: z.number().int().nullable(),
  })
  .openapi("AlertOverride");

export const listAlertOverrides = createRoute({
  method: "get",
  path: "/api/v1/alert-overrides/{scope}/{scopeId}",
  operationId: "listAlertOverrides",
  summary: "List overrides for a scope",
  description: "Every rule with the scope's override, if any.",
  tags: tag,
  security: authenticated,
  request: { params: OverrideScopeParams },
  responses: {
    200: jsonResponse(z.array(AlertOverrideSchema), "Rules and overrides"),
    ...errorResponses(400, 401, 404),
  },
});

export const OverrideDetailSchema = z
  .object({
    operator: z.string(),
    threshold: z.number(),
    severity: z.string(),
    enabled: z.boolean(),
    duration_seconds: z.number().int().nullable(),
  })
  .openapi("OverrideDetail");

export const upsertAlertOverride = createRoute({
  method: "put",
  path: "/api/v1/alert-overrides/{scope}/{scopeId}/{ruleId}",
  operationId: "upsertAlertOverride",
  summary: "Create or update an override",
  description: "Requires manage_alert_rules. duration_seconds, when omitted, inherits from the next scope.",
  tags: tag,
  security: authenticated,
  request: {
    params: OverrideRuleParams,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              operator: AlertOperatorSchema,
              threshold: z.number(message("Request failed")),
              severity: AlertSeveritySchema,
              enabled: z.boolean(message("Request failed")),
              duration_seconds: durationField.nullable().optional(),
            })
            .openapi("AlertOverrideUpdate"),
        },
      },
    },
  },
  responses: {
    200: jsonResponse(StatusResponseSchema, "Saved"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const deleteAlertOverride = createRoute({
  method: "delete",
  path: "/api/v1/alert-overrides/{scope}/{scopeId}/{ruleId}",
  operationId: "deleteAlertOverride",
  summary: "Delete an override",
  description: "Requires manage_alert_rules.",
  tags: tag,
  security: authenticated,
  request: { params: OverrideRuleParams },
  responses: {
    200: jsonResponse(StatusResponseSchema, "Deleted"),
    ...errorResponses(400, 401, 403),
  },
});

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

export const getAlertOverrideContext = createRoute({
  method: "get",
  path: "/api/v1/alert-overrides/context/{connectionId}/{ruleId}",
  operationId: "getAlertOverrideContext",
  summary: "Override editing context",
  description:
    "A connection's cluster and group, the rule and its overrides at each level. Requires manage_alert_rules.",
  tags: tag,
  security: authenticated,
  request: {
    params: z.object({ connectionId: idParam("Invalid connection ID"), ruleId: idParam("Invalid rule ID") }),
  },
  responses: {
    200: jsonResponse(OverrideContextSchema, "Context"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const alertRoutes = {
  listAlerts,
  alertCounts,
  acknowledgeAlert,
  unacknowledgeAlert,
  saveAlertAnalysis,
  listAlertRules,
  getAlertRule,
  updateAlertRule,
  listAlertOverrides,
  upsertAlertOverride,
  deleteAlertOverride,
  getAlertOverrideContext,
} as const;
