import type { Channel } from "./channel.js";
import type { Message } from "./transport.js";

export type NotificationType = "alert_fire" | "alert_clear" | "reminder";

/** What a notification tells about an alert (read from the alert's current row when sent). */
export interface AlertFacts {
  id: number;
  alertType: string;
  title: string;
  description: string;
  severity: string;
  status: string;
  triggeredAt: Date;
  clearedAt: Date | null;
  connectionId: number;
  serverName: string;
  serverHost: string;
  serverPort: number;
  databaseName: string | null;
  metricName: string | null;
  metricValue: number | null;
  thresholdValue: number | null;
  operator: string | null;
}

const colors: Record<string, string> = { critical: "#dc3545", warning: "#ffc107", info: "#17a2b8" };
const emoji: Record<string, string> = {
  critical: ":red_circle:",
  warning: ":warning:",
  info: ":information_source:",
};
const RESOLVED_COLOR = "#28a745";

/** "2d 3h", "3h 5m", "5m 10s" or "10s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) {
    return `${d}d ${h}h`;
  }
  if (h > 0) {
    return `${h}h ${m}m`;
  }
  if (m > 0) {
    return `${m}m ${s % 60}s`;
  }
  return `${s}s`;
}

function variables(
  alert: AlertFacts,
  type: NotificationType,
  reminderCount: number,
  now: Date,
): Record<string, string> {
  const end = alert.clearedAt ?? now;
  return {
    AlertID: String(alert.id),
    AlertType: alert.alertType,
    AlertTitle: alert.title,
    AlertDescription: alert.description,
    Severity: alert.severity,
    Status: alert.status,
    TriggeredAt: alert.triggeredAt.toISOString(),
    ClearedAt: alert.clearedAt?.toISOString() ?? "",
    ConnectionID: String(alert.connectionId),
    ServerName: alert.serverName,
    ServerHost: alert.serverHost,
    ServerPort: String(alert.serverPort),
    DatabaseName: alert.databaseName ?? "",
    MetricName: alert.metricName ?? "",
    MetricValue: alert.metricValue === null ? "" : String(alert.metricValue),
    ThresholdValue: alert.thresholdValue === null ? "" : String(alert.thresholdValue),
    Operator: alert.operator ?? "",
    NotificationType: type,
    ReminderCount: String(reminderCount),
    Timestamp: now.toISOString(),
    Duration: formatDuration(end.getTime() - alert.triggeredAt.getTime()),
    SeverityColor: colors[alert.severity] ?? "#6c757d",
    SeverityEmoji: emoji[alert.severity] ?? "",
  };
}

/** Fills `{{.Name}}` (or `{{Name}}`) placeholders; `escapeValue` quotes values for the template's format. */
export function fillTemplate(
  template: string,
  vars: Record<string, string>,
  escapeValue: (value: string) => string,
): string {
  return template.replace(/\{\{\s*\.?([A-Za-z]+)\s*\}\}/g, (whole, name: string) =>
    name in vars ? escapeValue(vars[name] as string) : whole,
  );
}

const jsonEscape = (value: string) => JSON.stringify(value).slice(1, -1);
const htmlEscape = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function chatBody(alert: AlertFacts, type: NotificationType, vars: Record<string, string>) {
  const server = { title: "Server", value: alert.serverName, short: true };
  if (type === "alert_clear") {
    return {
      text: `Resolved: ${alert.title}`,
      attachments: [
        {
          color: RESOLVED_COLOR,
          title: `Resolved: ${alert.title}`,
          fields: [server, { title: "Duration", value: vars.Duration, short: true }],
        },
      ],
    };
  }
  if (type === "reminder") {
    return {
      text: `Reminder: ${alert.title} is still active`,
      attachments: [
        {
          color: vars.SeverityColor,
          title: alert.title,
          text: alert.description,
          fields: [
            server,
            { title: "Active Since", value: vars.TriggeredAt, short: true },
            { title: "Reminder #", value: vars.ReminderCount, short: true },
          ],
        },
      ],
    };
  }
  const fields = [server, { title: "Severity", value: alert.severity, short: true }];
  if (alert.databaseName) {
    fields.push({ title: "Database", value: alert.databaseName, short: true });
  }
  if (alert.metricName) {
    fields.push({ title: "Metric", value: `${alert.metricName} = ${vars.MetricValue}`, short: true });
  }
  return {
    text: `:rotating_light: ${vars.SeverityEmoji} [${alert.severity.toUpperCase()}] ${alert.title}`,
    attachments: [{ color: vars.SeverityColor, title: alert.title, text: alert.description, fields }],
  };
}

function webhookBody(
  alert: AlertFacts,
  type: NotificationType,
  vars: Record<string, string>,
  reminderCount: number,
) {
  const server = { name: alert.serverName, host: alert.serverHost, port: alert.serverPort };
  if (type === "alert_clear") {
    return {
      event: "alert_clear",
      alert_id: alert.id,
      title: alert.title,
      server,
      triggered_at: vars.TriggeredAt,
      cleared_at: alert.clearedAt?.toISOString() ?? null,
      duration: vars.Duration,
    };
  }
  if (type === "reminder") {
    return {
      event: "reminder",
      alert_id: alert.id,
      title: alert.title,
      description: alert.description,
      severity: alert.severity,
      server,
      triggered_at: vars.TriggeredAt,
      reminder_count: reminderCount,
    };
  }
  return {
    event: "alert_fire",
    alert_id: alert.id,
    title: alert.title,
    description: alert.description,
    severity: alert.severity,
    server,
    database: alert.databaseName ?? undefined,
    metric: alert.metricName
      ? {
          name: alert.metricName,
          value: alert.metricValue ?? undefined,
          threshold: alert.thresholdValue ?? undefined,
          operator: alert.operator ?? undefined,
        }
      : undefined,
    triggered_at: vars.TriggeredAt,
  };
}

function subject(alert: AlertFacts, type: NotificationType, reminderCount: number): string {
  if (type === "alert_clear") {
    return `[RESOLVED] ${alert.title}`;
  }
  if (type === "reminder") {
    return `[REMINDER #${reminderCount}] ${alert.title}`;
  }
  return `[${alert.severity.toUpperCase()}] Alert: ${alert.title}`;
}

function emailText(alert: AlertFacts, type: NotificationType, vars: Record<string, string>): string {
  const lines = [
    type === "alert_clear" ? `Resolved: ${alert.title}` : alert.title,
    "",
    alert.description,
    "",
    `Server: ${alert.serverName} (${alert.serverHost}:${alert.serverPort})`,
    `Severity: ${alert.severity}`,
  ];
  if (alert.databaseName) {
    lines.push(`Database: ${alert.databaseName}`);
  }
  if (alert.metricName) {
    lines.push(`Metric: ${alert.metricName} = ${vars.MetricValue} (${vars.Operator} ${vars.ThresholdValue})`);
  }
  lines.push(`Triggered at: ${vars.TriggeredAt}`);
  if (type === "alert_clear") {
    lines.push(`Cleared at: ${vars.ClearedAt}`, `Duration: ${vars.Duration}`);
  }
  if (type === "reminder") {
    lines.push(`Reminder #${vars.ReminderCount}`);
  }
  return lines.join("\n");
}

/** The message a channel sends for an alert event; a channel's own template replaces the default. */
export function alertMessage(
  channel: Channel,
  alert: AlertFacts,
  type: NotificationType,
  reminderCount: number,
  now: Date,
): Message {
  const vars = variables(alert, type, reminderCount, now);
  const template =
    type === "alert_fire"
      ? channel.templates.fire
      : type === "alert_clear"
        ? channel.templates.clear
        : channel.templates.reminder;
  const text = emailText(alert, type, vars);
  let json: unknown =
    channel.channelType === "webhook"
      ? webhookBody(alert, type, vars, reminderCount)
      : chatBody(alert, type, vars);
  let html = `<html><body><pre>${htmlEscape(text)}</pre></body></html>`;
  if (template) {
    if (channel.channelType === "email") {
      const filled = fillTemplate(template, vars, htmlEscape);
      html = /^\s*<(html|!doctype|body|div)/i.test(filled)
        ? filled
        : `<html><body><pre>${filled}</pre></body></html>`;
    } else {
      json = JSON.parse(fillTemplate(template, vars, jsonEscape));
    }
  }
  return { json, subject: subject(alert, type, reminderCount), html, text };
}

/** The message of POST /notification-channels/{id}/test. */
export function testMessage(channel: Channel, now: Date): Message {
  const kind =
    channel.channelType === "slack"
      ? "Slack"
      : channel.channelType === "mattermost"
        ? "Mattermost"
        : "webhook";
  const text = `dbmon test notification: this ${kind} channel "${channel.name}" works (${now.toISOString()}).`;
  return {
    json:
      channel.channelType === "webhook"
        ? { event: "test", text, channel: channel.name, timestamp: now.toISOString() }
        : { text },
    subject: "dbmon - Test Email",
    html: `<html><body><p>This is a test email from dbmon for the channel "${htmlEscape(channel.name)}".</p></body></html>`,
    text: `This is a test email from dbmon for the channel "${channel.name}".`,
  };
}
