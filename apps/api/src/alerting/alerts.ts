import { type Datastore, schema } from "@dbmon/datastore";
import { and, count, desc, eq, gte, isNull, lte, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { Visibility } from "../auth/visibility.js";
import { Conflict, Forbidden, NotFound } from "../errors.js";
import { type Page, withTotal } from "../paging.js";
import { iso, isoOrNull } from "./time.js";

const { alerts, alertAcknowledgments, alertRules, connections } = schema;

type Severity = "info" | "warning" | "critical";

/**
 * Which alerts to list; every field narrows, an absent one does not. Status, severity and type
 * are compared as given: a value that is none of the known ones matches no alert.
 */
export interface AlertFilter {
  connectionIds?: readonly number[] | undefined;
  status?: string | undefined;
  /** Only alerts not cleared yet. */
  excludeCleared?: boolean | undefined;
  severity?: string | undefined;
  alertType?: string | undefined;
  ruleId?: number | undefined;
  metricName?: string | undefined;
  triggeredFrom?: Date | undefined;
  triggeredUntil?: Date | undefined;
}

/** The most recent acknowledgement of each alert. */
function latestAcknowledgement(db: Datastore["db"]) {
  return db
    .select({
      acknowledgedAt: alertAcknowledgments.acknowledgedAt,
      acknowledgedBy: alertAcknowledgments.acknowledgedBy,
      message: alertAcknowledgments.message,
      falsePositive: alertAcknowledgments.falsePositive,
    })
    .from(alertAcknowledgments)
    .where(eq(alertAcknowledgments.alertId, alerts.id))
    .orderBy(desc(alertAcknowledgments.acknowledgedAt), desc(alertAcknowledgments.id))
    .limit(1)
    .as("ack");
}

/** Alerts, their acknowledgements and who may act on them. */
export class AlertService {
  constructor(private readonly datastore: Datastore) {}

  /**
   * Alerts on visible connections matching the filter, newest first: one page, filtered and paged
   * in SQL, and the total of all that match. A whole-server alert is seen through every connection
   * of its server (`Visibility.alertConnection`): listed once, under the connection the caller sees
   * it through (the filtered one, when filtering by connection).
   */
  async find(
    access: RequestAccess,
    filter: AlertFilter,
    { limit, offset }: Page,
  ): Promise<{ alerts: ListedAlert[]; total: number }> {
    const visibility = await Visibility.of(access);
    const seenThrough = visibility.alertConnection(filter.connectionIds);
    const where = and(
      sql`${seenThrough} is not null`,
      filter.status !== undefined ? eq(alerts.status, filter.status) : undefined,
      filter.excludeCleared ? isNull(alerts.clearedAt) : undefined,
      filter.severity !== undefined ? eq(alerts.severity, filter.severity) : undefined,
      filter.alertType !== undefined ? eq(alerts.alertType, filter.alertType) : undefined,
      filter.ruleId !== undefined ? eq(alerts.ruleId, filter.ruleId) : undefined,
      filter.metricName !== undefined ? eq(alerts.metricName, filter.metricName) : undefined,
      filter.triggeredFrom ? gte(alerts.triggeredAt, filter.triggeredFrom) : undefined,
      filter.triggeredUntil ? lte(alerts.triggeredAt, filter.triggeredUntil) : undefined,
    );
    const db = this.datastore.db;
    const ack = latestAcknowledgement(db);
    const { rows, total } = await withTotal(
      db
        .select({
          alert: alerts,
          connectionId: sql<number>`${seenThrough}`.mapWith(Number),
          metricUnit: alertRules.metricUnit,
          serverName: connections.name,
          acknowledgedAt: ack.acknowledgedAt,
          acknowledgedBy: ack.acknowledgedBy,
          ackMessage: ack.message,
          falsePositive: ack.falsePositive,
        })
        .from(alerts)
        .leftJoin(alertRules, eq(alertRules.id, alerts.ruleId))
        .leftJoin(connections, eq(connections.id, seenThrough))
        .leftJoinLateral(ack, sql`true`)
        .where(where)
        .orderBy(desc(alerts.triggeredAt), desc(alerts.id))
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(alerts).where(where),
    );
    return { alerts: rows, total };
  }

  /**
   * Active alerts on visible connections, by connection, cluster and severity: each alert once,
   * under the connection the caller sees it through (as listed).
   */
  async counts(access: RequestAccess) {
    const visibility = await Visibility.of(access);
    const seenThrough = visibility.alertConnection();
    const rows = await this.datastore.db
      .select({
        connectionId: connections.id,
        clusterId: connections.clusterId,
        severity: alerts.severity,
        n: count(),
      })
      .from(alerts)
      .innerJoin(connections, eq(connections.id, seenThrough))
      .where(eq(alerts.status, "active"))
      .groupBy(connections.id, connections.clusterId, alerts.severity);
    const byServer: Record<string, number> = {};
    const byCluster: Record<string, number> = {};
    const counts: Record<string, Record<Severity, number>> = {};
    let total = 0;
    for (const row of rows) {
      const server = String(row.connectionId);
      total += row.n;
      byServer[server] = (byServer[server] ?? 0) + row.n;
      if (row.clusterId !== null) {
        byCluster[String(row.clusterId)] = (byCluster[String(row.clusterId)] ?? 0) + row.n;
      }
      const entry = counts[server] ?? { critical: 0, warning: 0, info: 0 };
      counts[server] = entry;
      entry[row.severity as Severity] += row.n;
    }
    return { total, by_server: byServer, by_cluster: byCluster, counts };
  }

  /** An active alert becomes acknowledged by the caller. */
  async acknowledge(
    access: RequestAccess,
    alertId: number,
    input: { message?: string | undefined; falsePositive?: boolean | undefined },
  ): Promise<void> {
    await this.requireAlert(access, alertId);
    const caller = await access.requireCaller();
    const falsePositive = input.falsePositive ?? false;
    const done = await this.datastore.db.transaction(async (tx) => {
      const updated = await tx
        .update(alerts)
        .set({ status: "acknowledged", lastUpdated: sql`now()` })
        .where(and(eq(alerts.id, alertId), eq(alerts.status, "active")))
        .returning({ id: alerts.id });
      if (updated.length === 0) {
        return false;
      }
      await tx.insert(alertAcknowledgments).values({
        alertId,
        acknowledgedBy: caller.username,
        acknowledgeType: falsePositive ? "false_positive" : "acknowledge",
        message: input.message ?? "",
        falsePositive,
      });
      return true;
    });
    if (!done) {
      throw new Conflict("Alert is not currently active");
    }
  }

  /** An acknowledged alert becomes active again; its acknowledgements are deleted. */
  async unacknowledge(access: RequestAccess, alertId: number): Promise<void> {
    await this.requireAlert(access, alertId);
    const done = await this.datastore.db.transaction(async (tx) => {
      const updated = await tx
        .update(alerts)
        .set({ status: "active", lastUpdated: sql`now()` })
        .where(and(eq(alerts.id, alertId), eq(alerts.status, "acknowledged")))
        .returning({ id: alerts.id });
      if (updated.length === 0) {
        return false;
      }
      await tx.delete(alertAcknowledgments).where(eq(alertAcknowledgments.alertId, alertId));
      return true;
    });
    if (!done) {
      throw new Conflict("Alert is not currently acknowledged");
    }
  }

  async saveAnalysis(
    access: RequestAccess,
    alertId: number,
    analysis: string,
    metricValue: number | null,
  ): Promise<void> {
    await this.requireAlert(access, alertId);
    await this.datastore.db
      .update(alerts)
      .set({ aiAnalysis: analysis, aiAnalysisMetricValue: metricValue })
      .where(eq(alerts.id, alertId));
  }

  /**
   * The alert exists (404 otherwise) and the caller sees it (403 otherwise): it sees one of the
   * connections the alert is seen through (`Visibility.alertConnection`).
   */
  private async requireAlert(access: RequestAccess, alertId: number): Promise<void> {
    const visibility = await Visibility.of(access);
    const [alert] = await this.datastore.db
      .select({ seenThrough: visibility.alertConnection() })
      .from(alerts)
      .where(eq(alerts.id, alertId));
    if (!alert) {
      throw new NotFound("Alert not found");
    }
    if (alert.seenThrough === null) {
      throw new Forbidden("Access denied");
    }
  }
}

type AlertRow = typeof alerts.$inferSelect;

/**
 * An alert as listed: its row, the connection the caller sees it through (its own, or for a
 * whole-server alert another connection of its server) with that connection's name, its rule's
 * unit and its latest acknowledgement.
 */
export interface ListedAlert {
  alert: AlertRow;
  connectionId: number;
  metricUnit: string | null;
  serverName: string | null;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
  ackMessage: string | null;
  falsePositive: boolean | null;
}

/** An alert as the wire (GET /alerts, the MCP tools) shows it. */
export function presentAlert(row: ListedAlert) {
  const { alert } = row;
  const triggeredAt = iso(alert.triggeredAt);
  return {
    id: alert.id,
    alert_type: alert.alertType as "threshold" | "anomaly" | "connection",
    rule_id: alert.ruleId,
    connection_id: row.connectionId,
    database_name: alert.databaseName,
    object_name: alert.objectName,
    probe_name: alert.probeName,
    metric_name: alert.metricName,
    metric_value: alert.metricValue,
    metric_unit: row.metricUnit,
    threshold_value: alert.thresholdValue,
    operator: alert.operator,
    severity: alert.severity as Severity,
    title: alert.title,
    description: alert.description,
    message: alert.description,
    correlation_id: alert.correlationId,
    status: alert.status as "active" | "acknowledged" | "cleared",
    triggered_at: triggeredAt,
    fired_at: triggeredAt,
    cleared_at: isoOrNull(alert.clearedAt),
    last_updated: isoOrNull(alert.lastUpdated),
    anomaly_score: alert.anomalyScore,
    anomaly_details: alert.anomalyDetails as Record<string, unknown> | null,
    server_name: row.serverName ?? "Unknown",
    acknowledged_at: isoOrNull(row.acknowledgedAt),
    acknowledged_by: row.acknowledgedBy,
    ack_message: row.ackMessage,
    false_positive: row.falsePositive ?? false,
    ai_analysis: alert.aiAnalysis,
    ai_analysis_metric_value: alert.aiAnalysisMetricValue,
  };
}
