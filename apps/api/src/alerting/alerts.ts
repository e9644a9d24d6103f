import type { Sql } from "@dbmon/datastore";
import { iso, isoOrNull } from "./time.js";

export interface AlertRow {
  id: number;
  alert_type: "threshold" | "anomaly" | "connection";
  rule_id: number | null;
  connection_id: number;
  database_name: string | null;
  object_name: string | null;
  probe_name: string | null;
  metric_name: string | null;
  metric_value: number | null;
  metric_unit: string | null;
  threshold_value: number | null;
  operator: string | null;
  severity: "info" | "warning" | "critical";
  title: string;
  description: string;
  correlation_id: string | null;
  status: "active" | "acknowledged" | "cleared";
  triggered_at: string;
  cleared_at: string | null;
  last_updated: string | null;
  anomaly_score: number | null;
  anomaly_details: Record<string, unknown> | null;
  server_name: string | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  ack_message: string | null;
  false_positive: boolean | null;
  ai_analysis: string | null;
  ai_analysis_metric_value: number | null;
}

/** Alert columns with the rule's unit, the server's name and the latest acknowledgement. */
export function alertSelect(sql: Sql) {
  return sql`
    select a.id::int as id, a.alert_type, a.rule_id, a.connection_id, a.database_name, a.object_name, a.probe_name,
      a.metric_name, a.metric_value, r.metric_unit, a.threshold_value, a.operator, a.severity, a.title,
      a.description, a.correlation_id, a.status, a.triggered_at, a.cleared_at, a.last_updated, a.anomaly_score,
      a.anomaly_details, c.name as server_name, ack.acknowledged_at, ack.acknowledged_by, ack.message as ack_message,
      ack.false_positive, a.ai_analysis, a.ai_analysis_metric_value
    from alerts a
    left join alert_rules r on r.id = a.rule_id
    left join connections c on c.id = a.connection_id
    left join lateral (
      select acknowledged_at, acknowledged_by, message, false_positive from alert_acknowledgments
      where alert_id = a.id order by acknowledged_at desc, id desc limit 1
    ) ack on true`;
}

export function presentAlert(row: AlertRow) {
  const triggeredAt = iso(row.triggered_at);
  return {
    id: row.id,
    alert_type: row.alert_type,
    rule_id: row.rule_id,
    connection_id: row.connection_id,
    database_name: row.database_name,
    object_name: row.object_name,
    probe_name: row.probe_name,
    metric_name: row.metric_name,
    metric_value: row.metric_value,
    metric_unit: row.metric_unit,
    threshold_value: row.threshold_value,
    operator: row.operator,
    severity: row.severity,
    title: row.title,
    description: row.description,
    message: row.description,
    correlation_id: row.correlation_id,
    status: row.status,
    triggered_at: triggeredAt,
    fired_at: triggeredAt,
    cleared_at: isoOrNull(row.cleared_at),
    last_updated: isoOrNull(row.last_updated),
    anomaly_score: row.anomaly_score,
    anomaly_details: row.anomaly_details,
    server_name: row.server_name ?? "Unknown",
    acknowledged_at: isoOrNull(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by,
    ack_message: row.ack_message,
    false_positive: row.false_positive ?? false,
    ai_analysis: row.ai_analysis,
    ai_analysis_metric_value: row.ai_analysis_metric_value,
  };
}

/** The alert's connection, or undefined for an unknown alert. */
export async function alertConnection(
  sql: Sql,
  alertId: number,
): Promise<{ connectionId: number; status: string } | undefined> {
  const [row] = await sql<{ connection_id: number; status: string }[]>`
    select connection_id, status from alerts where id = ${alertId}`;
  return row && { connectionId: row.connection_id, status: row.status };
}
