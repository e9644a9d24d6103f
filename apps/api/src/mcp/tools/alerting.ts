import { z } from "zod";
import { presentAlert } from "../../alerting/alerts.js";
import { presentBlackout } from "../../alerting/blackouts.js";
import { effectiveRule, type OverriddenRule } from "../../alerting/overrides.js";
import type { RuleFilter } from "../../alerting/rules.js";
import { presentSchedule } from "../../alerting/schedules.js";
import type { Page } from "../../paging.js";
import { pageArguments, rowIdArgument, timeArgument } from "../arguments.js";
import { boundConnection } from "../connection.js";
import { pointInTime } from "../time.js";
import { defineTool, type ToolContext, text, tsvPage } from "../tool.js";

const RULE_CATEGORIES = [
  "connections",
  "replication",
  "storage",
  "performance",
  "transactions",
  "locks",
  "wal",
  "maintenance",
  "queries",
  "errors",
] as const;

const optionalConnection = rowIdArgument
  .optional()
  .describe("Only this connection; default every connection you can see");

/** A named connection must be one the caller can see, as for every connection-bound tool. */
async function checkConnection(context: ToolContext, connectionId: number | undefined): Promise<void> {
  if (connectionId !== undefined) {
    await boundConnection(context, { connection_id: connectionId });
  }
}

export const getAlertHistory = defineTool({
  name: "get_alert_history",
  privilege: "get_alert_history",
  description:
    'Alerts raised on the connections you can see, newest first, as TSV: id, rule, metric, value and threshold, severity, status (active, acknowledged, cleared), when it fired and cleared, and the acknowledgement. Filter by connection, status, rule or metric; `time_start` (default "7d") bounds the history and is ignored for status active. Use it to answer what went wrong and when.',
  compactDescription: "Alert history across visible connections.",
  input: {
    connection_id: optionalConnection,
    status: z.enum(["active", "cleared", "acknowledged", "all"]).default("all"),
    rule_id: rowIdArgument.optional(),
    metric_name: z.string().min(1).optional(),
    time_start: timeArgument.default("7d").describe('"24h", "7d" or an ISO time'),
    ...pageArguments(50, 100),
  },
  async run(context, args) {
    await checkConnection(context, args.connection_id);
    const now = context.services.clock.now();
    const { alerts, total } = await context.services.alerts.find(
      context.access,
      {
        connectionIds: args.connection_id === undefined ? undefined : [args.connection_id],
        status: args.status === "all" ? undefined : args.status,
        ruleId: args.rule_id,
        metricName: args.metric_name,
        triggeredFrom: args.status === "active" ? undefined : pointInTime(args.time_start, now, "time_start"),
      },
      { limit: args.limit, offset: args.offset },
    );
    const rows = alerts.map(presentAlert).map((alert) => ({
      id: alert.id,
      connection_id: alert.connection_id,
      server_name: alert.server_name,
      rule_id: alert.rule_id,
      title: alert.title,
      metric_name: alert.metric_name,
      metric_value: alert.metric_value,
      operator: alert.operator,
      threshold_value: alert.threshold_value,
      severity: alert.severity,
      status: alert.status,
      triggered_at: alert.triggered_at,
      cleared_at: alert.cleared_at,
      acknowledged_by: alert.acknowledged_by,
      ack_message: alert.ack_message,
    }));
    return text(tsvPage(total, "alert", rows, "No alerts"));
  },
});

/** A rule as get_alert_rules lists it: what it watches and the values in effect. */
function ruleLine(rule: OverriddenRule) {
  const effective = effectiveRule(rule);
  return {
    id: rule.rule.id,
    name: rule.rule.name,
    category: rule.rule.category,
    metric_name: rule.rule.metricName,
    operator: effective.operator,
    threshold: effective.threshold,
    severity: effective.severity,
    duration_seconds: effective.durationSeconds,
    enabled: effective.enabled,
  };
}

export const getAlertRules = defineTool({
  name: "get_alert_rules",
  privilege: "get_alert_rules",
  description:
    "Alert rules with their thresholds, by category and name, as TSV after the number of rules that match: metric, operator, threshold, severity, duration and whether enabled. With `connection_id`, the values in effect on that connection (its overrides applied). Use it to explain why an alert fired or did not.",
  compactDescription: "Alert rules and effective thresholds.",
  input: {
    connection_id: rowIdArgument.optional().describe("Apply this connection's overrides"),
    category: z.enum(RULE_CATEGORIES).optional(),
    enabled_only: z.boolean().default(true),
    ...pageArguments(100, 500),
  },
  async run(context, args) {
    await checkConnection(context, args.connection_id);
    const filter = { category: args.category, enabled: args.enabled_only ? true : undefined };
    const page = { limit: args.limit, offset: args.offset };
    const { rows, total } =
      args.connection_id === undefined
        ? await defaultRules(context, filter, page)
        : await rulesOn(context, args.connection_id, filter, page);
    return text(tsvPage(total, "rule", rows, "No alert rules match"));
  },
});

/** The rules as their defaults make them. */
async function defaultRules(context: ToolContext, filter: RuleFilter, page: Page) {
  const { rules, total } = await context.services.alertRules.find(filter, page);
  return { rows: rules.map((rule) => ruleLine({ rule, override: null })), total };
}

/** The rules in effect on a connection, with whether its override changed each. */
async function rulesOn(context: ToolContext, connectionId: number, filter: RuleFilter, page: Page) {
  const { rules, total } = await context.services.alertOverrides.find(
    context.access,
    "server",
    connectionId,
    filter,
    page,
  );
  return { rows: rules.map((rule) => ({ ...ruleLine(rule), overridden: rule.override !== null })), total };
}

export const getBlackouts = defineTool({
  name: "get_blackouts",
  privilege: "get_blackouts",
  description:
    "Blackout windows (periods when alerts are suppressed) on the scopes you can see, newest first, as TSV after the number of windows that match: scope, target, start, end, reason and whether active now. `include_schedules` adds the recurring schedules (by name, the same page of them). Use it to tell whether an alert was muted or maintenance is under way.",
  compactDescription: "Blackout windows and schedules.",
  input: {
    connection_id: rowIdArgument.optional(),
    active_only: z.boolean().default(false),
    include_schedules: z.boolean().default(false),
    ...pageArguments(20, 50),
  },
  async run(context, args) {
    await checkConnection(context, args.connection_id);
    const scope = { connectionId: args.connection_id };
    const page = { limit: args.limit, offset: args.offset };
    const { blackouts, total } = await context.services.blackouts.find(
      context.access,
      { ...scope, active: args.active_only ? true : undefined },
      page,
    );
    const parts = [tsvPage(total, "blackout", blackouts.map(presentBlackout), "No blackouts")];
    if (args.include_schedules) {
      const found = await context.services.blackoutSchedules.find(context.access, scope, page);
      parts.push(tsvPage(found.total, "schedule", found.schedules.map(presentSchedule), "No schedules"));
    }
    return text(parts.join("\n\n"));
  },
});

export const getTimelineEvents = defineTool({
  name: "get_timeline_events",
  privilege: "get_timeline_events",
  description:
    'Events on the estate\'s timeline, newest first, as TSV after the number of events that match: alerts fired and cleared, configuration and setting changes, restarts, blackouts and more, with connection, time, severity, title and summary. Bound it with `start_time` (default "24h") and `end_time`; `event_types` is a comma-separated list; `limit` and `offset` page through them. Use it to correlate a problem with what changed.',
  compactDescription: "Timeline of events (changes, restarts, alerts).",
  input: {
    connection_id: rowIdArgument.optional(),
    start_time: timeArgument.default("24h").describe('"24h", "7d" or an ISO time'),
    end_time: timeArgument.default("now").describe('"now" or an ISO time'),
    event_types: z.string().optional().describe("Comma-separated event types"),
    ...pageArguments(100, 500),
  },
  async run(context, args) {
    await checkConnection(context, args.connection_id);
    const now = context.services.clock.now();
    const { events, total } = await context.services.timeline.list(
      context.access,
      {
        start: pointInTime(args.start_time, now, "start_time"),
        end: pointInTime(args.end_time, now, "end_time"),
        connectionIds: args.connection_id === undefined ? undefined : [args.connection_id],
        eventTypes: args.event_types
          ?.split(",")
          .map((type) => type.trim())
          .filter(Boolean),
      },
      { limit: args.limit, offset: args.offset },
    );
    const rows = events.map(({ details: _, ...event }) => event);
    return text(tsvPage(total, "event", rows, "No events"));
  },
});

export const alertingTools = [getAlertHistory, getAlertRules, getBlackouts, getTimelineEvents];
