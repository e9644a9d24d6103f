import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { eventId, nowOnInsert, ownedBy, rowId, timestamptz } from "./columns.js";
import { connections } from "./connections.js";
import { monitoredConnection } from "./monitored-connection.js";

const operatorCheck = (column: unknown) => sql`${column} in ('>', '>=', '<', '<=', '==', '!=')`;
const severityCheck = (column: unknown) => sql`${column} in ('info', 'warning', 'critical')`;

/**
 * Threshold rules. The built-in catalogue is seeded by the alerter at start-up (and by the API's
 * first read) from `@dbmon/alerter`'s rule catalogue; `default_duration_seconds` is how long the
 * condition must hold before an alert fires (0: at the first violating evaluation).
 */
export const alertRules = pgTable(
  "alert_rules",
  {
    id: rowId(),
    name: text().notNull().unique(),
    description: text().notNull(),
    category: text().notNull(),
    metricName: text().notNull(),
    metricUnit: text(),
    defaultOperator: text().notNull(),
    defaultThreshold: doublePrecision().notNull(),
    defaultSeverity: text().notNull(),
    defaultEnabled: boolean().notNull().default(true),
    defaultDurationSeconds: integer().notNull().default(0),
    requiredExtension: text(),
    isBuiltIn: boolean().notNull().default(false),
    createdAt: nowOnInsert(),
  },
  (table) => [
    check("alert_rules_operator", operatorCheck(table.defaultOperator)),
    check("alert_rules_severity", severityCheck(table.defaultSeverity)),
    check("alert_rules_duration", sql`${table.defaultDurationSeconds} >= 0`),
  ],
);

/**
 * Alerts. At most one open (active or acknowledged) alert exists per deduplication key, enforced by
 * partial unique indexes so that several alerter processes cannot open the same alert twice.
 * `server_wide`: a condition of the whole server (or its host), raised once per server under the
 * connection that speaks for it (`queries/database-ownership.ts`) and visible through every
 * connection at the server's address.
 */
export const alerts = pgTable(
  "alerts",
  {
    id: eventId(),
    alertType: text().notNull(),
    ruleId: integer().references(() => alertRules.id, { onDelete: "set null" }),
    connectionId: monitoredConnection(),
    databaseName: text(),
    objectName: text(),
    probeName: text(),
    metricName: text(),
    metricValue: doublePrecision(),
    thresholdValue: doublePrecision(),
    operator: text(),
    severity: text().notNull(),
    title: text().notNull(),
    description: text().notNull().default(""),
    correlationId: text(),
    status: text().notNull().default("active"),
    triggeredAt: nowOnInsert(),
    clearedAt: timestamptz(),
    lastUpdated: timestamptz(),
    anomalyScore: doublePrecision(),
    anomalyDetails: jsonb(),
    serverWide: boolean().notNull().default(false),
    aiAnalysis: text(),
    aiAnalysisMetricValue: doublePrecision(),
  },
  (table) => [
    check("alerts_type", sql`${table.alertType} in ('threshold', 'anomaly', 'connection')`),
    check("alerts_status", sql`${table.status} in ('active', 'acknowledged', 'cleared')`),
    check("alerts_severity", severityCheck(table.severity)),
    uniqueIndex("alerts_open_threshold_key")
      .on(
        table.ruleId,
        table.connectionId,
        sql`coalesce(${table.databaseName}, '')`,
        sql`coalesce(${table.objectName}, '')`,
      )
      .where(sql`${table.alertType} = 'threshold' and ${table.status} <> 'cleared'`),
    uniqueIndex("alerts_open_connection_key")
      .on(table.connectionId)
      .where(sql`${table.alertType} = 'connection' and ${table.status} <> 'cleared'`),
    uniqueIndex("alerts_open_anomaly_key")
      .on(table.metricName, table.connectionId, sql`coalesce(${table.databaseName}, '')`)
      .where(sql`${table.alertType} = 'anomaly' and ${table.status} <> 'cleared'`),
    index("alerts_triggered_at_idx").on(table.triggeredAt),
    index("alerts_connection_status_idx").on(table.connectionId, table.status),
  ],
);

export const alertAcknowledgments = pgTable(
  "alert_acknowledgments",
  {
    id: eventId(),
    alertId: ownedBy(() => alerts.id),
    acknowledgedBy: text().notNull(),
    acknowledgeType: text().notNull().default("acknowledge"),
    message: text().notNull().default(""),
    falsePositive: boolean().notNull().default(false),
    acknowledgedAt: nowOnInsert(),
  },
  (table) => [index("alert_acknowledgments_alert_idx").on(table.alertId)],
);

/**
 * What a per-scope override (of a rule's defaults, of a channel's switch) applies to: `scope_id` is
 * the connection (`server`), cluster or cluster-group id.
 */
const overrideScopeColumns = {
  scope: text().notNull(),
  scopeId: integer().notNull(),
};

const overrideScopeCheck = (table: { scope: unknown }) =>
  sql`${table.scope} in ('server', 'cluster', 'group')`;

/**
 * Per-scope overrides of a rule's defaults (server: a connection, cluster, group). `scope_id` is the
 * connection, cluster or cluster-group id; the clusters tables belong to the clusters feature.
 */
export const alertThresholds = pgTable(
  "alert_thresholds",
  {
    id: rowId(),
    ruleId: integer()
      .notNull()
      .references(() => alertRules.id, { onDelete: "cascade" }),
    ...overrideScopeColumns,
    /** Server overrides only: the database it applies to ('' for every database). */
    databaseName: text().notNull().default(""),
    operator: text().notNull(),
    threshold: doublePrecision().notNull(),
    severity: text().notNull(),
    enabled: boolean().notNull().default(true),
    durationSeconds: integer(),
    createdAt: nowOnInsert(),
    updatedAt: nowOnInsert(),
  },
  (table) => [
    check("alert_thresholds_scope", overrideScopeCheck(table)),
    check("alert_thresholds_operator", operatorCheck(table.operator)),
    check("alert_thresholds_severity", severityCheck(table.severity)),
    check(
      "alert_thresholds_duration",
      sql`${table.durationSeconds} is null or ${table.durationSeconds} >= 0`,
    ),
    uniqueIndex("alert_thresholds_key").on(table.ruleId, table.scope, table.scopeId, table.databaseName),
  ],
);

/**
 * When a rule's condition started to hold for a (rule, connection, database, object), so that an
 * alert fires only after the effective duration. Removed as soon as the condition ends.
 */
export const alertConditions = pgTable(
  "alert_conditions",
  {
    ruleId: integer()
      .notNull()
      .references(() => alertRules.id, { onDelete: "cascade" }),
    connectionId: monitoredConnection(),
    databaseName: text().notNull().default(""),
    objectName: text().notNull().default(""),
    since: timestamptz().notNull(),
    lastSeenAt: timestamptz().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.ruleId, table.connectionId, table.databaseName, table.objectName] }),
  ],
);

/**
 * Tables past their autovacuum trigger, since when: the collection at which each first crossed it
 * (since its last vacuum), kept by the alerter as collections arrive so that
 * `table_last_autovacuum_hours` reads one row per table instead of the table's history. A row goes
 * when the table drops below the trigger or is vacuumed.
 */
export const autovacuumCrossings = pgTable(
  "autovacuum_crossings",
  {
    connectionId: monitoredConnection(),
    databaseName: text().notNull(),
    schemaName: text().notNull(),
    relationName: text().notNull(),
    crossedAt: timestamptz().notNull(),
    /** The table's latest vacuum (manual or automatic) when it crossed: a later one resets the row. */
    vacuumedAt: timestamptz(),
  },
  (table) => [
    primaryKey({
      columns: [table.connectionId, table.databaseName, table.schemaName, table.relationName],
    }),
  ],
);

/**
 * The collection of each database `autovacuum_crossings` was last brought up to date with: when it
 * is the collection before the latest, a table past its trigger without a crossing crossed at the
 * latest; otherwise (the first time, or after the alerter was away) its history says when.
 */
export const autovacuumCrossingSyncs = pgTable(
  "autovacuum_crossing_syncs",
  {
    connectionId: monitoredConnection(),
    databaseName: text().notNull(),
    syncedAt: timestamptz().notNull(),
  },
  (table) => [primaryKey({ columns: [table.connectionId, table.databaseName] })],
);

const blackoutScopeColumns = {
  scope: text().notNull(),
  groupId: integer(),
  clusterId: integer(),
  connectionId: integer().references(() => connections.id, { onDelete: "cascade" }),
  databaseName: text(),
};

const blackoutScopeCheck = (table: {
  scope: unknown;
  groupId: unknown;
  clusterId: unknown;
  connectionId: unknown;
}) => sql`(${table.scope} = 'estate' and ${table.groupId} is null and ${table.clusterId} is null and ${table.connectionId} is null)
  or (${table.scope} = 'group' and ${table.groupId} is not null and ${table.clusterId} is null and ${table.connectionId} is null)
  or (${table.scope} = 'cluster' and ${table.clusterId} is not null and ${table.groupId} is null and ${table.connectionId} is null)
  or (${table.scope} = 'server' and ${table.connectionId} is not null and ${table.groupId} is null and ${table.clusterId} is null)`;

/** Blackout windows: no new alerts for the scope between start and end. */
export const blackouts = pgTable(
  "blackouts",
  {
    id: eventId(),
    ...blackoutScopeColumns,
    reason: text().notNull().default(""),
    startTime: timestamptz().notNull(),
    endTime: timestamptz().notNull(),
    createdBy: text().notNull(),
    createdAt: nowOnInsert(),
    /** The schedule that created this window, if any. */
    scheduleId: integer(),
  },
  (table) => [
    check("blackouts_scope", blackoutScopeCheck(table)),
    check("blackouts_window", sql`${table.endTime} >= ${table.startTime}`),
    index("blackouts_window_idx").on(table.endTime, table.startTime),
  ],
);

/** Recurring blackouts: a 5-field cron expression in an IANA time zone opens a window of N minutes. */
export const blackoutSchedules = pgTable(
  "blackout_schedules",
  {
    id: rowId(),
    ...blackoutScopeColumns,
    name: text().notNull(),
    cronExpression: text().notNull(),
    durationMinutes: integer().notNull(),
    timezone: text().notNull().default("UTC"),
    reason: text().notNull().default(""),
    enabled: boolean().notNull().default(true),
    createdBy: text().notNull(),
    createdAt: nowOnInsert(),
    updatedAt: nowOnInsert(),
    /** The scheduled instant the last window was opened for: one window per instant, whatever runs. */
    lastFiredFor: timestamptz(),
  },
  (table) => [
    check("blackout_schedules_scope", blackoutScopeCheck(table)),
    check("blackout_schedules_duration", sql`${table.durationMinutes} > 0`),
  ],
);

/** Where notifications go. Secrets (webhook URL, header values, credentials, SMTP password) are encrypted. */
export const notificationChannels = pgTable(
  "notification_channels",
  {
    id: rowId(),
    ownerUsername: text(),
    ownerToken: text(),
    enabled: boolean().notNull().default(true),
    channelType: text().notNull(),
    name: text().notNull(),
    description: text(),
    webhookUrlEncrypted: text(),
    endpointUrl: text(),
    httpMethod: text().notNull().default("POST"),
    /** Header names in clear (they are shown), the whole name→value object encrypted. */
    headerNames: text().array().notNull().default(sql`'{}'::text[]`),
    headersEncrypted: text(),
    authType: text(),
    authCredentialsEncrypted: text(),
    smtpHost: text(),
    smtpPort: integer().notNull().default(587),
    smtpUsername: text(),
    smtpPasswordEncrypted: text(),
    smtpUseTls: boolean().notNull().default(true),
    fromAddress: text(),
    fromName: text(),
    templateAlertFire: text(),
    templateAlertClear: text(),
    templateReminder: text(),
    reminderEnabled: boolean().notNull().default(false),
    reminderIntervalHours: integer().notNull().default(4),
    isEstateDefault: boolean().notNull().default(false),
    createdAt: nowOnInsert(),
    updatedAt: nowOnInsert(),
  },
  (table) => [
    check(
      "notification_channels_type",
      sql`${table.channelType} in ('slack', 'mattermost', 'webhook', 'email')`,
    ),
    check("notification_channels_reminder", sql`${table.reminderIntervalHours} > 0`),
  ],
);

export const emailRecipients = pgTable(
  "email_recipients",
  {
    id: rowId(),
    channelId: integer()
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    emailAddress: text().notNull(),
    displayName: text(),
    enabled: boolean().notNull().default(true),
    createdAt: nowOnInsert(),
  },
  (table) => [index("email_recipients_channel_idx").on(table.channelId)],
);

/** Per-scope switch of a channel: server > cluster > group > the channel's estate default. */
export const notificationChannelOverrides = pgTable(
  "notification_channel_overrides",
  {
    id: rowId(),
    channelId: integer()
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    ...overrideScopeColumns,
    enabled: boolean().notNull(),
    updatedAt: nowOnInsert(),
  },
  (table) => [
    check("notification_channel_overrides_scope", overrideScopeCheck(table)),
    uniqueIndex("notification_channel_overrides_key").on(table.channelId, table.scope, table.scopeId),
  ],
);

/**
 * Every notification, queued and then attempted: the queue the alerters claim from with
 * FOR UPDATE SKIP LOCKED (D11), and the history of every attempt.
 */
export const notificationHistory = pgTable(
  "notification_history",
  {
    id: eventId(),
    alertId: ownedBy(() => alerts.id),
    channelId: integer()
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    notificationType: text().notNull(),
    status: text().notNull().default("pending"),
    reminderCount: integer().notNull().default(0),
    attemptCount: integer().notNull().default(0),
    maxAttempts: integer().notNull().default(4),
    nextRetryAt: nowOnInsert(),
    /** Until when the alerter that claimed the row may send it; then another may take it over. */
    claimedUntil: timestamptz(),
    claimedBy: text(),
    errorMessage: text(),
    responseCode: integer(),
    sentAt: timestamptz(),
    createdAt: nowOnInsert(),
  },
  (table) => [
    check(
      "notification_history_type",
      sql`${table.notificationType} in ('alert_fire', 'alert_clear', 'reminder')`,
    ),
    check(
      "notification_history_status",
      sql`${table.status} in ('pending', 'sending', 'sent', 'failed', 'retrying')`,
    ),
    index("notification_history_due_idx")
      .on(table.nextRetryAt)
      .where(sql`${table.status} in ('pending', 'retrying', 'sending')`),
    index("notification_history_alert_idx").on(table.alertId),
  ],
);

/** Every attempt to deliver a notification, successful or not. */
export const notificationAttempts = pgTable(
  "notification_attempts",
  {
    id: eventId(),
    notificationId: ownedBy(() => notificationHistory.id),
    attempt: integer().notNull(),
    succeeded: boolean().notNull(),
    responseCode: integer(),
    errorMessage: text(),
    attemptedAt: nowOnInsert(),
    sentBy: text().notNull(),
  },
  (table) => [index("notification_attempts_notification_idx").on(table.notificationId)],
);

export const notificationReminderState = pgTable(
  "notification_reminder_state",
  {
    alertId: ownedBy(() => alerts.id),
    channelId: integer()
      .notNull()
      .references(() => notificationChannels.id, { onDelete: "cascade" }),
    lastReminderAt: timestamptz().notNull(),
    reminderCount: integer().notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.alertId, table.channelId] })],
);

/** One series of a rule metric: a connection, the metric, and the database and object it is about ("" for none). */
const baselineSeries = () => ({
  connectionId: monitoredConnection(),
  databaseName: text().notNull().default(""),
  metricName: text().notNull(),
  objectName: text().notNull().default(""),
});

/** What baselines and their hourly partials both keep of the samples they summarise. */
const sampleStatistics = () => ({
  sampleCount: integer().notNull(),
  mean: doublePrecision().notNull(),
  min: doublePrecision().notNull(),
  max: doublePrecision().notNull(),
  firstSampleAt: timestamptz().notNull(),
  lastSampleAt: timestamptz().notNull(),
});

/**
 * Statistics of each rule metric's series (connection, database, metric, object) over the alerter's
 * lookback window of collected history, recalculated periodically: the whole window (`all`) and each
 * hour of the day (`hour_of_day` 0–23) and day of the week (`day_of_week` 0–6, Sunday first) with
 * enough samples, in the monitored server's time zone (`time_zone`). `mean` and `stddev` (population)
 * leave out the window's outliers (`outlier_count`); `min`, `max` and `sample_count` count every
 * sample.
 */
export const metricBaselines = pgTable(
  "metric_baselines",
  {
    ...baselineSeries(),
    period: text().notNull(),
    periodValue: smallint().notNull(),
    timeZone: text().notNull(),
    ...sampleStatistics(),
    stddev: doublePrecision().notNull(),
    outlierCount: integer().notNull(),
    lastCalculated: timestamptz().notNull(),
  },
  (table) => [
    primaryKey({
      name: "metric_baselines_key",
      columns: [
        table.connectionId,
        table.databaseName,
        table.metricName,
        table.objectName,
        table.period,
        table.periodValue,
      ],
    }),
    check("metric_baselines_period", sql`${table.period} in ('all', 'hour_of_day', 'day_of_week')`),
  ],
);

/** Values that left their baseline's band; one open candidate per series (deduplicated). */
export const anomalyCandidates = pgTable(
  "anomaly_candidates",
  {
    id: eventId(),
    connectionId: monitoredConnection(),
    databaseName: text().notNull().default(""),
    metricName: text().notNull(),
    metricValue: doublePrecision().notNull(),
    zScore: doublePrecision().notNull(),
    context: jsonb().notNull(),
    detectedAt: nowOnInsert(),
    lastSeenAt: nowOnInsert(),
    processed: boolean().notNull().default(false),
    alertId: bigint({ mode: "number" }).references(() => alerts.id, { onDelete: "set null" }),
  },
  (table) => [
    uniqueIndex("anomaly_candidates_open_key")
      .on(table.connectionId, table.databaseName, table.metricName)
      .where(sql`not ${table.processed}`),
  ],
);

/**
 * Hourly partial aggregates of each rule metric's series, from which `metric_baselines` are merged:
 * an hourly update recomputes only the last hours instead of a week of history. One row per series,
 * UTC hour and local hour of day / day of week (a zone with a half-hour offset splits a UTC hour in
 * two). `mean` and `m2` (sum of squared deviations from `mean`) merge exactly (Chan et al.).
 */
export const metricBaselineHours = pgTable(
  "metric_baseline_hours",
  {
    ...baselineSeries(),
    hourStart: timestamptz().notNull(),
    hourOfDay: smallint().notNull(),
    dayOfWeek: smallint().notNull(),
    timeZone: text().notNull(),
    ...sampleStatistics(),
    m2: doublePrecision().notNull(),
  },
  (table) => [
    primaryKey({
      name: "metric_baseline_hours_key",
      columns: [
        table.metricName,
        table.connectionId,
        table.databaseName,
        table.objectName,
        table.hourStart,
        table.hourOfDay,
        table.dayOfWeek,
      ],
    }),
    index("metric_baseline_hours_metric_hour_idx").on(table.metricName, table.hourStart),
    index("metric_baseline_hours_connection_idx").on(table.connectionId),
  ],
);

/**
 * How far each metric's hourly partials are up to date (`calculated_through`, an hour's start) and
 * when that update ran: the next update recomputes from there, and the hour before too when the
 * update ran so soon after the hour that some of its collections may not have been stored yet.
 */
export const metricBaselineProgress = pgTable("metric_baseline_progress", {
  metricName: text().primaryKey(),
  calculatedThrough: timestamptz().notNull(),
  calculatedAt: timestamptz().notNull(),
});
