import { type ServerDirectoryEntry, type Sql, serverAddress, serverDirectory } from "@dbmon/datastore";
import { type AlertOperator, isAlertOperator } from "./operators.js";

export interface Rule {
  id: number;
  name: string;
  description: string;
  metric_name: string;
  default_operator: string;
  default_threshold: number;
  default_severity: string;
  default_enabled: boolean;
  default_duration_seconds: number;
}

export interface Effective {
  operator: AlertOperator;
  threshold: number;
  severity: string;
  enabled: boolean;
  durationSeconds: number;
}

interface OverrideRow {
  rule_id: number;
  scope: string;
  scope_id: number;
  database_name: string;
  operator: string;
  threshold: number;
  severity: string;
  enabled: boolean;
  duration_seconds: number | null;
}

interface BlackoutRow {
  scope: string;
  group_id: number | null;
  cluster_id: number | null;
  connection_id: number | null;
  database_name: string | null;
}

export interface Topology {
  name: string;
  /** Its server's address (`serverAddress`): connections with one address are one server. */
  server: string;
  host: string;
  port: number;
  monitored: boolean;
  connectionError: string | null;
  clusterId: number | null;
  groupId: number | null;
}

/**
 * What one evaluation needs besides metric values: connections with their cluster and group, the
 * overrides and the active blackouts, read once per pass.
 */
export class EvaluationContext {
  private constructor(
    readonly now: Date,
    readonly connections: Map<number, Topology>,
    private readonly overrides: OverrideRow[],
    private readonly blackouts: BlackoutRow[],
    /** The monitored connections of each server address (`serverDirectory`). */
    private readonly servers: Map<string, ServerDirectoryEntry>,
  ) {}

  static async load(sql: Sql, now: Date): Promise<EvaluationContext> {
    const connections = await sql<
      {
        id: number;
        name: string;
        host: string;
        hostaddr: string | null;
        port: number;
        database_name: string;
        is_monitored: boolean;
        connection_error: string | null;
        cluster_id: number | null;
        group_id: number | null;
      }[]
    >`select c.id, c.name, c.host, c.hostaddr, c.port, c.database_name, c.is_monitored, c.connection_error, k.id as cluster_id, k.group_id
      from connections c left join clusters k on k.id = c.cluster_id`;
    const overrides = await sql<OverrideRow[]>`select * from alert_thresholds`;
    const iso = now.toISOString();
    const blackouts = await sql<BlackoutRow[]>`
      select scope, group_id, cluster_id, connection_id, database_name from blackouts
      where start_time <= ${iso}::timestamptz and end_time >= ${iso}::timestamptz`;
    return new EvaluationContext(
      now,
      new Map(
        connections.map((c) => [
          c.id,
          {
            name: c.name,
            server: serverAddress(c),
            host: c.host,
            port: c.port,
            monitored: c.is_monitored,
            connectionError: c.connection_error,
            clusterId: c.cluster_id,
            groupId: c.group_id,
          },
        ]),
      ),
      overrides,
      blackouts,
      serverDirectory(connections),
    );
  }

  /**
   * The connection that speaks for the connection's server (the lowest-id monitored connection at
   * its address), under which its whole-server alerts are kept; undefined when no monitored
   * connection is at that address.
   */
  speakerOf(connectionId: number): number | undefined {
    const topology = this.connections.get(connectionId);
    return topology ? this.servers.get(topology.server)?.firstConnectionId : undefined;
  }

  /**
   * Whether an active blackout covers any monitored connection of the server `connectionId` speaks
   * for (whole-server alerts): maintenance declared through any registration of a server silences
   * the server's own alerts, as it silenced that connection's copy of them before they were kept
   * once per server.
   */
  serverBlackedOut(connectionId: number): boolean {
    const topology = this.connections.get(connectionId);
    const members = (topology && this.servers.get(topology.server)?.connectionIds) ?? [connectionId];
    return members.some((member) => this.blackedOut(member, null));
  }

  /** Whether an active blackout covers the connection (and database, for server blackouts that name one). */
  blackedOut(connectionId: number, databaseName: string | null): boolean {
    const topology = this.connections.get(connectionId);
    return this.blackouts.some((b) => {
      switch (b.scope) {
        case "estate":
          return true;
        case "group":
          return topology?.groupId !== null && b.group_id === topology?.groupId;
        case "cluster":
          return topology?.clusterId !== null && b.cluster_id === topology?.clusterId;
        default:
          return (
            b.connection_id === connectionId && (b.database_name === null || b.database_name === databaseName)
          );
      }
    });
  }

  /** server (exact database first) > cluster > group > the rule's defaults. */
  effective(rule: Rule, connectionId: number, databaseName: string | null): Effective {
    const topology = this.connections.get(connectionId);
    const mine = this.overrides.filter((o) => o.rule_id === rule.id);
    const chain = [
      mine.find(
        (o) =>
          o.scope === "server" &&
          o.scope_id === connectionId &&
          databaseName !== null &&
          o.database_name === databaseName,
      ),
      mine.find((o) => o.scope === "server" && o.scope_id === connectionId && o.database_name === ""),
      topology?.clusterId != null
        ? mine.find((o) => o.scope === "cluster" && o.scope_id === topology.clusterId)
        : undefined,
      topology?.groupId != null
        ? mine.find((o) => o.scope === "group" && o.scope_id === topology.groupId)
        : undefined,
    ].filter((o): o is OverrideRow => o !== undefined);
    const winner = chain[0];
    const duration =
      chain.find((o) => o.duration_seconds !== null)?.duration_seconds ?? rule.default_duration_seconds;
    const operator = winner?.operator ?? rule.default_operator;
    return {
      operator: isAlertOperator(operator) ? operator : ">",
      threshold: winner?.threshold ?? rule.default_threshold,
      severity: winner?.severity ?? rule.default_severity,
      enabled: winner?.enabled ?? rule.default_enabled,
      durationSeconds: duration,
    };
  }
}
