import type { ConnectionHealthSchema, FleetHealthSchema, HealthCheckSchema } from "@dbmon/contract";
import { type Datastore, schema } from "@dbmon/datastore";
import {
  HEALTH_CHECKS,
  type HealthCheckDefinition,
  type HealthFinding,
  type HealthStatus,
} from "@dbmon/monitoring";
import type { z } from "@hono/zod-openapi";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { scopeRef, Visibility } from "../auth/visibility.js";
import { NotFound } from "../errors.js";

export type ConnectionHealth = z.output<typeof ConnectionHealthSchema>;
export type FleetHealth = z.output<typeof FleetHealthSchema>;
type HealthCheck = z.output<typeof HealthCheckSchema>;

/** What a fleet view aggregates: the estate, or one cluster or group. */
export type FleetScope = { kind: "estate" } | { kind: "cluster" | "group"; id: number };

const { clusters, connections, healthCheckStatus } = schema;

/** Worst first: what an aggregate status is. */
const SEVERITY: readonly HealthStatus[] = ["critical", "warning", "unknown", "ok"];

/** The worst of statuses; ok for none. */
function worst(statuses: Iterable<HealthStatus>): HealthStatus {
  const seen = new Set(statuses);
  return SEVERITY.find((status) => seen.has(status)) ?? "ok";
}

interface StoredResult {
  checkName: string;
  status: string;
  value: number | null;
  findings: unknown;
  evaluatedAt: Date;
  changedAt: Date;
}

function presentCheck(check: HealthCheckDefinition, stored: StoredResult | undefined): HealthCheck {
  return {
    name: check.name,
    title: check.title,
    category: check.category,
    status: (stored?.status as HealthStatus | undefined) ?? "unknown",
    value: stored?.value ?? null,
    unit: check.unit,
    measures: check.measures,
    threshold: { warning: check.warning, critical: check.critical, direction: check.direction },
    remedy: check.remedy,
    findings: (stored?.findings as HealthFinding[] | undefined) ?? [],
    evaluated_at: stored?.evaluatedAt.toISOString() ?? null,
    changed_at: stored?.changedAt.toISOString() ?? null,
  };
}

/**
 * The health checks' results as the alerter's periodic pass stored them (@dbmon/datastore's
 * health-checks module): for one connection, and aggregated over the connections of a cluster, a
 * group or the estate that the caller can see. No monitored server is queried.
 */
export class HealthService {
  constructor(private readonly datastore: Datastore) {}

  /** Every check of a connection (the access rule has found it and let the caller see it). */
  async connection(connectionId: number): Promise<ConnectionHealth> {
    const [connection] = await this.datastore.db
      .select({ name: connections.name })
      .from(connections)
      .where(eq(connections.id, connectionId));
    if (!connection) {
      throw new NotFound("Connection not found");
    }
    const rows = await this.datastore.db
      .select()
      .from(healthCheckStatus)
      .where(eq(healthCheckStatus.connectionId, connectionId));
    const stored = new Map(rows.map((row) => [row.checkName, row]));
    const checks = HEALTH_CHECKS.map((check) => presentCheck(check, stored.get(check.name)));
    const evaluated = rows.map((row) => row.evaluatedAt.getTime());
    return {
      connection_id: connectionId,
      connection_name: connection.name,
      status: worst(checks.map((check) => check.status)),
      evaluated_at: evaluated.length ? new Date(Math.max(...evaluated)).toISOString() : null,
      checks,
    };
  }

  /** The estate, or a cluster or group the caller can see (otherwise not found), aggregated. */
  async fleet(access: RequestAccess, scope: FleetScope): Promise<FleetHealth> {
    const visibility = await Visibility.of(access);
    let inScope: SQL | undefined;
    if (scope.kind === "cluster") {
      await visibility.requireScope(this.datastore.db, scopeRef("cluster", scope.id), "Cluster not found");
      inScope = eq(connections.clusterId, scope.id);
    } else if (scope.kind === "group") {
      await visibility.requireScope(
        this.datastore.db,
        scopeRef("group", scope.id),
        "Cluster group not found",
      );
      inScope = eq(clusters.groupId, scope.id);
    }
    // One row per connection: its checks' statuses as one object.
    const rows = await this.datastore.db
      .select({
        connectionId: connections.id,
        connectionName: connections.name,
        statuses: sql<Record<string, HealthStatus> | null>`jsonb_object_agg(${healthCheckStatus.checkName},
          ${healthCheckStatus.status}) filter (where ${healthCheckStatus.checkName} is not null)`,
        evaluatedAt: sql<string | null>`to_json(max(${healthCheckStatus.evaluatedAt})) #>> '{}'`,
      })
      .from(connections)
      .leftJoin(clusters, eq(clusters.id, connections.clusterId))
      .leftJoin(healthCheckStatus, eq(healthCheckStatus.connectionId, connections.id))
      .where(and(visibility.connection(connections.id), inScope))
      .groupBy(connections.id);
    return aggregate(scope, rows);
  }
}

interface FleetRow {
  connectionId: number;
  connectionName: string;
  statuses: Record<string, HealthStatus> | null;
  evaluatedAt: string | null;
}

/** Counts by status, per connection (its worst check) and per check. */
function aggregate(scope: FleetScope, rows: FleetRow[]): FleetHealth {
  const zero = () => ({ ok: 0, warning: 0, critical: 0, unknown: 0 });
  const statusCounts = zero();
  const checks = HEALTH_CHECKS.map((check) => ({ name: check.name, title: check.title, ...zero() }));
  const listed = rows.map((row) => {
    const statuses = HEALTH_CHECKS.map((check) => row.statuses?.[check.name] ?? "unknown");
    statuses.forEach((status, index) => {
      (checks[index] as Record<HealthStatus, number>)[status] += 1;
    });
    const status = worst(statuses);
    statusCounts[status] += 1;
    const named = (wanted: HealthStatus) =>
      HEALTH_CHECKS.filter((_, index) => statuses[index] === wanted).map((check) => check.name);
    return {
      connection_id: row.connectionId,
      connection_name: row.connectionName,
      status,
      critical_checks: named("critical"),
      warning_checks: named("warning"),
      evaluated_at: row.evaluatedAt === null ? null : new Date(row.evaluatedAt).toISOString(),
    };
  });
  listed.sort(
    (a, b) =>
      SEVERITY.indexOf(a.status) - SEVERITY.indexOf(b.status) ||
      a.connection_name.localeCompare(b.connection_name) ||
      a.connection_id - b.connection_id,
  );
  return {
    scope: scope.kind,
    scope_id: scope.kind === "estate" ? null : scope.id,
    status: worst(listed.map((connection) => connection.status)),
    connection_count: listed.length,
    status_counts: statusCounts,
    checks,
    connections: listed,
  };
}
