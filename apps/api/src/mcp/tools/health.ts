import {
  type ConnectionHealthView,
  type FleetHealthView,
  presentConnectionHealth,
  presentFleetHealth,
} from "../../health/present.js";
import { rowIdArgument } from "../arguments.js";
import { boundConnection } from "../connection.js";
import { defineTool, text, tsv } from "../tool.js";

/** A connection's checks: a summary line, then one TSV row per check, what to do where not ok. */
function connectionHealthText(health: ConnectionHealthView): string {
  const summary = `Connection ${health.connection_id} (${health.connection_name}): ${health.status}, evaluated at ${health.evaluated_at ?? "never (no collected data judged yet)"}`;
  return `${summary}\n${tsv(
    ["check", "status", "value", "unit", "warning_at", "critical_at", "findings", "remedy"],
    health.checks.map((check) => [
      check.name,
      check.status,
      check.value,
      check.unit,
      `${check.threshold.direction === "above" ? ">=" : "<="} ${check.threshold.warning}`,
      check.threshold.critical === null
        ? null
        : `${check.threshold.direction === "above" ? ">=" : "<="} ${check.threshold.critical}`,
      check.findings.length ? check.findings : null,
      check.status === "warning" || check.status === "critical" ? check.remedy : null,
    ]),
  )}`;
}

/** An aggregate: a summary line, the connections that are not ok, and the checks that fail somewhere. */
function fleetHealthText(health: FleetHealthView): string {
  const scope =
    health.scope === "estate"
      ? "Estate"
      : `${health.scope === "cluster" ? "Cluster" : "Group"} ${health.scope_id}`;
  const counts = health.status_counts;
  const summary = `${scope}: ${health.status}; ${health.connection_count} connections: ${counts.critical} critical, ${counts.warning} warning, ${counts.unknown} unknown, ${counts.ok} ok`;
  const notOk = health.connections.filter((connection) => connection.status !== "ok");
  const failing = health.checks.filter((check) => check.warning + check.critical > 0);
  return [
    summary,
    notOk.length
      ? tsv(
          ["connection_id", "connection", "status", "critical_checks", "warning_checks", "evaluated_at"],
          notOk.map((c) => [
            c.connection_id,
            c.connection_name,
            c.status,
            c.critical_checks.join(","),
            c.warning_checks.join(","),
            c.evaluated_at,
          ]),
        )
      : "Every connection is ok.",
    failing.length
      ? tsv(
          ["check", "critical", "warning", "unknown", "ok"],
          failing.map((check) => [check.name, check.critical, check.warning, check.unknown, check.ok]),
        )
      : "",
  ]
    .filter(Boolean)
    .join("\n\n");
}

export const analyzeDbHealth = defineTool({
  name: "analyze_db_health",
  privilege: "analyze_db_health",
  description:
    "Health checks from collected data (no query to the monitored server): invalid, duplicate, unused and bloated indexes, table bloat, dead tuples, transaction ID and multixact age, sequences near exhaustion, connection saturation, replication lag, inactive replication slots, cache hit ratio, long and idle-in-transaction sessions, NOT VALID constraints. With `connection_id`: each check's status (ok, warning, critical, unknown), value, thresholds, the objects concerned and what to do. With `cluster_id` or `group_id`: that cluster's or group's connections aggregated. With none: the estate (every connection you can see), then ask about a connection for details.",
  compactDescription: "Health checks of a connection, cluster, group or the estate, with what to do.",
  input: {
    connection_id: rowIdArgument.optional().describe("One connection, every check in detail"),
    cluster_id: rowIdArgument.optional().describe("A cluster's connections, aggregated"),
    group_id: rowIdArgument.optional().describe("A cluster group's connections, aggregated"),
  },
  async run(context, args) {
    const { health } = context.services;
    if (args.connection_id !== undefined) {
      const { row } = await boundConnection(context, args);
      return text(connectionHealthText(presentConnectionHealth(await health.connection(row.id))));
    }
    if (args.cluster_id !== undefined) {
      const fleet = await health.fleet(context.access, { kind: "cluster", id: args.cluster_id });
      return text(fleetHealthText(presentFleetHealth(fleet)));
    }
    if (args.group_id !== undefined) {
      const fleet = await health.fleet(context.access, { kind: "group", id: args.group_id });
      return text(fleetHealthText(presentFleetHealth(fleet)));
    }
    return text(fleetHealthText(presentFleetHealth(await health.fleet(context.access, { kind: "estate" }))));
  },
});

export const healthTools = [analyzeDbHealth];
