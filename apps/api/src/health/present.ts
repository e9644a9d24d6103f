import type { CheckResult, ConnectionHealth, FleetHealth } from "./service.js";

/** A check's result as the wire shows it: the definition's facts beside the stored judgement. */
function presentCheck({ check, ...result }: CheckResult) {
  return {
    name: check.name,
    title: check.title,
    category: check.category,
    status: result.status,
    value: result.value,
    unit: check.unit,
    measures: check.measures,
    threshold: { warning: check.warning, critical: check.critical, direction: check.direction },
    remedy: check.remedy,
    findings: result.findings,
    evaluated_at: result.evaluatedAt?.toISOString() ?? null,
    changed_at: result.changedAt?.toISOString() ?? null,
  };
}

/** `GET /connections/{id}/health`, and what analyze_db_health shows of one connection. */
export function presentConnectionHealth(health: ConnectionHealth) {
  return {
    connection_id: health.connectionId,
    connection_name: health.connectionName,
    status: health.status,
    evaluated_at: health.evaluatedAt?.toISOString() ?? null,
    checks: health.checks.map(presentCheck),
  };
}

/** The estate's, a cluster's or a group's health, on the wire and in analyze_db_health. */
export function presentFleetHealth(health: FleetHealth) {
  return {
    scope: health.scope.kind,
    scope_id: health.scope.kind === "estate" ? null : health.scope.id,
    status: health.status,
    connection_count: health.connections.length,
    status_counts: health.statusCounts,
    checks: health.checks.map(({ check, counts }) => ({ name: check.name, title: check.title, ...counts })),
    connections: health.connections.map((connection) => ({
      connection_id: connection.connectionId,
      connection_name: connection.connectionName,
      status: connection.status,
      critical_checks: connection.criticalChecks,
      warning_checks: connection.warningChecks,
      evaluated_at: connection.evaluatedAt?.toISOString() ?? null,
    })),
  };
}

export type ConnectionHealthView = ReturnType<typeof presentConnectionHealth>;
export type FleetHealthView = ReturnType<typeof presentFleetHealth>;
