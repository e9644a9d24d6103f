import { type Datastore, schema } from "@dbmon/datastore";
import {
  HEALTH_CHECKS,
  type HealthCheckDefinition,
  type HealthFinding,
  type HealthStatus,
} from "@dbmon/monitoring";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { scopeRef, Visibility } from "../auth/visibility.js";
import { NotFound } from "../errors.js";

/** One check's result on a connection: unknown, with no times, until the alerter has judged it. */
export interface CheckResult {
  check: HealthCheckDefinition;
  status: HealthStatus;
  value: number | null;
  findings: HealthFinding[];
  evaluatedAt: Date | null;
  changedAt: Date | null;
}

/** Every check of one connection; its status is the worst of them. */
export interface ConnectionHealth {
  connectionId: number;
  connectionName: string;
  status: HealthStatus;
  evaluatedAt: Date | null;
  checks: CheckResult[];
}

export type StatusCounts = Record<HealthStatus, number>;

/** A connection of an aggregate: its worst status and the checks at critical and at warning. */
export interface ConnectionStanding {
  connectionId: number;
  connectionName: string;
  status: HealthStatus;
  criticalChecks: string[];
  warningChecks: string[];
  evaluatedAt: Date | null;
}

/** The connections of a scope the caller can see, worst first, with counts per status and per check. */
export interface FleetHealth {
  scope: FleetScope;
  status: HealthStatus;
  statusCounts: StatusCounts;
  checks: { check: HealthCheckDefinition; counts: StatusCounts }[];
  connections: ConnectionStanding[];
}

/** What a fleet view aggregates: the estate, or one cluster or group. */
export type FleetScope = { kind: "estate" } | { kind: "cluster" | "group"; id: number };

const { clusters, connections, healthCheckEvaluations, healthCheckStatus } = schema;

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
  changedAt: Date;
}

/** A check's stored result; every check of a connection is evaluated in the same pass (`evaluatedAt`). */
function checkResult(
  check: HealthCheckDefinition,
  stored: StoredResult | undefined,
  evaluatedAt: Date | null,
): CheckResult {
  return {
    check,
    status: (stored?.status as HealthStatus | undefined) ?? "unknown",
    value: stored?.value ?? null,
    findings: (stored?.findings as HealthFinding[] | undefined) ?? [],
    evaluatedAt: stored ? evaluatedAt : null,
    changedAt: stored?.changedAt ?? null,
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
    const [evaluation] = await this.datastore.db
      .select({ evaluatedAt: healthCheckEvaluations.evaluatedAt })
      .from(healthCheckEvaluations)
      .where(eq(healthCheckEvaluations.connectionId, connectionId));
    const evaluatedAt = rows.length > 0 ? (evaluation?.evaluatedAt ?? null) : null;
    const stored = new Map(rows.map((row) => [row.checkName, row]));
    const checks = HEALTH_CHECKS.map((check) => checkResult(check, stored.get(check.name), evaluatedAt));
    return {
      connectionId,
      connectionName: connection.name,
      status: worst(checks.map((check) => check.status)),
      evaluatedAt,
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
        evaluatedAt: sql<string | null>`to_json(max(${healthCheckEvaluations.evaluatedAt})
          filter (where ${healthCheckStatus.checkName} is not null)) #>> '{}'`,
      })
      .from(connections)
      .leftJoin(clusters, eq(clusters.id, connections.clusterId))
      .leftJoin(healthCheckStatus, eq(healthCheckStatus.connectionId, connections.id))
      .leftJoin(healthCheckEvaluations, eq(healthCheckEvaluations.connectionId, connections.id))
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
  const zero = (): StatusCounts => ({ ok: 0, warning: 0, critical: 0, unknown: 0 });
  const statusCounts = zero();
  const checks = HEALTH_CHECKS.map((check) => ({ check, counts: zero() }));
  const listed = rows.map((row): ConnectionStanding => {
    const statuses = HEALTH_CHECKS.map((check) => row.statuses?.[check.name] ?? "unknown");
    statuses.forEach((status, index) => {
      (checks[index] as { counts: StatusCounts }).counts[status] += 1;
    });
    const status = worst(statuses);
    statusCounts[status] += 1;
    const named = (wanted: HealthStatus) =>
      HEALTH_CHECKS.filter((_, index) => statuses[index] === wanted).map((check) => check.name);
    return {
      connectionId: row.connectionId,
      connectionName: row.connectionName,
      status,
      criticalChecks: named("critical"),
      warningChecks: named("warning"),
      evaluatedAt: row.evaluatedAt === null ? null : new Date(row.evaluatedAt),
    };
  });
  listed.sort(
    (a, b) =>
      SEVERITY.indexOf(a.status) - SEVERITY.indexOf(b.status) ||
      a.connectionName.localeCompare(b.connectionName) ||
      a.connectionId - b.connectionId,
  );
  return {
    scope,
    status: worst(listed.map((connection) => connection.status)),
    statusCounts,
    checks,
    connections: listed,
  };
}
