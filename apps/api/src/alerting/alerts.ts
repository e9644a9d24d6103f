import { ALERT_PAGING, type AlertListQuerySchema } from "@dbmon/contract";
import { type Datastore, schema } from "@dbmon/datastore";
import { and, count, desc, eq, gte, inArray, isNull, lte, sql } from "drizzle-orm";
import type { z } from "zod";
import type { RequestAccess } from "../auth/access.js";
import { Visibility } from "../auth/visibility.js";
import { Conflict, Forbidden, NotFound } from "../errors.js";
import { iso, isoOrNull, page, parseRfc3339 } from "./time.js";

const { alerts, alertAcknowledgments, alertRules, connections } = schema;

export type AlertListQuery = z.output<typeof AlertListQuerySchema>;

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

/** One page of a list: at most `limit` rows after skipping `offset`. */
export interface AlertPage {
  limit: number;
  offset: number;
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

  /** GET /alerts: the wire query read as a filter and a page, the alerts presented. */
  async list(access: RequestAccess, query: AlertListQuery) {
    const found = await this.find(
      access,
      {
        connectionIds: requestedConnections(query),
        // An empty parameter (`?status=`) filters nothing, as it always has.
        status: query.status || undefined,
        excludeCleared: query.exclude_cleared,
        severity: query.severity || undefined,
        alertType: query.alert_type || undefined,
        triggeredFrom: parseRfc3339(query.start_time),
        triggeredUntil: parseRfc3339(query.end_time),
      },
      page(query.limit, query.offset, ALERT_PAGING),
    );
    return { alerts: found.alerts.map(presentAlert), total: found.total };
  }

  /**
   * Alerts on visible connections matching the filter, newest first: one page, filtered and paged
   * in SQL, and the total of all that match.
   */
  async find(
    access: RequestAccess,
    filter: AlertFilter,
    { limit, offset }: AlertPage,
  ): Promise<{ alerts: ListedAlert[]; total: number }> {
    const visibility = await Visibility.of(access);
    const where = and(
      filter.connectionIds ? inArray(alerts.connectionId, [...filter.connectionIds]) : undefined,
      visibility.connection(alerts.connectionId),
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
    const [rows, [total]] = await Promise.all([
      db
        .select({
          alert: alerts,
          metricUnit: alertRules.metricUnit,
          serverName: connections.name,
          acknowledgedAt: ack.acknowledgedAt,
          acknowledgedBy: ack.acknowledgedBy,
          ackMessage: ack.message,
          falsePositive: ack.falsePositive,
        })
        .from(alerts)
        .leftJoin(alertRules, eq(alertRules.id, alerts.ruleId))
        .leftJoin(connections, eq(connections.id, alerts.connectionId))
        .leftJoinLateral(ack, sql`true`)
        .where(where)
        .orderBy(desc(alerts.triggeredAt), desc(alerts.id))
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(alerts).where(where),
    ]);
    return { alerts: rows, total: total?.n ?? 0 };
  }

  /** Active alerts on visible connections, by connection, cluster and severity. */
  async counts(access: RequestAccess) {
    const visibility = await Visibility.of(access);
    const rows = await this.datastore.db
      .select({
        connectionId: alerts.connectionId,
        clusterId: connections.clusterId,
        severity: alerts.severity,
        n: count(),
      })
      .from(alerts)
      .innerJoin(connections, eq(connections.id, alerts.connectionId))
      .where(and(eq(alerts.status, "active"), visibility.connection(alerts.connectionId)))
      .groupBy(alerts.connectionId, connections.clusterId, alerts.severity);
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

  /** The alert exists (404 otherwise) and the caller may see its connection (403 otherwise). */
  private async requireAlert(access: RequestAccess, alertId: number): Promise<void> {
    const [alert] = await this.datastore.db
      .select({ connectionId: alerts.connectionId })
      .from(alerts)
      .where(eq(alerts.id, alertId));
    if (!alert) {
      throw new NotFound("Alert not found");
    }
    if (!(await access.isSuperuser()) && (await access.connectionLevel(alert.connectionId)) === undefined) {
      throw new Forbidden("Access denied");
    }
  }
}

const queryInt = (text: string) => (/^\d{1,15}$/.test(text) ? Number(text) : undefined);

/** `connection_id`, else the well-formed ids of `connection_ids`; undefined for no filter. */
function requestedConnections(query: AlertListQuery): number[] | undefined {
  if (query.connection_id !== undefined) {
    return [query.connection_id];
  }
  const listed = (query.connection_ids ?? "")
    .split(",")
    .map((part) => queryInt(part.trim()))
    .filter((id): id is number => id !== undefined);
  return listed.length > 0 ? listed : undefined;
}

type AlertRow = typeof alerts.$inferSelect;

/** An alert as listed: its row, its rule's unit, its server's name and its latest acknowledgement. */
export interface ListedAlert {
  alert: AlertRow;
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
    connection_id: alert.connectionId,
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
