import type { Sql } from "@dbmon/datastore";
import { findProbeSpec, rowSources, sourceRowCondition } from "@dbmon/monitoring";
import { alertConnections } from "../auth/visibility.js";

export type ServerStatus = "online" | "warning" | "offline" | "unknown";

/** Collected within this long: online; within twice as long: warning; later: offline. */
const FRESH_SECONDS = 360;

/**
 * A server's status from how recently anything was collected from it: `offline` while the collector
 * reports a connection error, `unknown` when nothing was ever collected (or it is not monitored).
 */
export function serverStatus(row: {
  is_monitored: boolean;
  connection_error: string | null;
  collected_seconds_ago: number | null;
}): ServerStatus {
  if (row.connection_error) {
    return "offline";
  }
  if (!row.is_monitored || row.collected_seconds_ago === null) {
    return "unknown";
  }
  if (row.collected_seconds_ago < FRESH_SECONDS) {
    return "online";
  }
  return row.collected_seconds_ago < 2 * FRESH_SECONDS ? "warning" : "offline";
}

export interface ServerRow {
  id: number;
  name: string;
  description: string | null;
  host: string;
  port: number;
  database_name: string;
  username: string;
  owner_username: string | null;
  is_monitored: boolean;
  cluster_id: number | null;
  role: string | null;
  membership_source: "auto" | "manual";
  connection_error: string | null;
  collected_seconds_ago: number | null;
}

/**
 * Connections with what the status needs: all of them, or the members of a cluster, narrowed to
 * the given connection ids when there are any.
 */
export async function readServers(
  sql: Sql,
  filter: { clusterId?: number; only?: number[] } = {},
): Promise<ServerRow[]> {
  const cluster = filter.clusterId ?? null;
  const only = filter.only ?? null;
  return sql<ServerRow[]>`
    select c.id, c.name, c.description, c.host, c.port, c.database_name, c.username, c.owner_username,
      c.is_monitored, c.cluster_id, c.role, c.membership_source, c.connection_error,
      (select extract(epoch from now() - max(p.last_run_at))::float8 from probe_runs p where p.connection_id = c.id)
        as collected_seconds_ago
    from connections c
    where (${cluster}::int is null or c.cluster_id = ${cluster}::int)
      and (${only}::int[] is null or c.id = any(${only}::int[]))
    order by c.name, c.id`;
}

export interface ServerFacts {
  primary_role: string | null;
  spock_node_name: string | null;
  version: string | null;
  os: string | null;
  platform: string | null;
  spock_version: string | null;
}

/** The latest collected facts per connection, from whichever metrics tables exist. */
export async function readServerFacts(sql: Sql): Promise<Map<number, ServerFacts>> {
  const [tables] = await sql<
    { node_role: boolean; server_info: boolean; os_info: boolean; extension: boolean }[]
  >`
    select to_regclass('metrics.pg_node_role') is not null as node_role,
      to_regclass('metrics.pg_server_info') is not null as server_info,
      to_regclass('metrics.pg_sys_os_info') is not null as os_info,
      to_regclass('metrics.pg_extension') is not null as extension`;
  // Each table where c's rows of it are stored (`rowSources`): its server's, its own, or per database.
  const latest = (table: string, select: string, extra = "") => {
    const probe = findProbeSpec(table);
    if (!probe) {
      throw new Error(`no probe ${table}`);
    }
    return `(select ${select} from ${rowSources(probe, "array[c.id]")} s
      join metrics.${table} m on m.connection_id = s.source_id and ${sourceRowCondition(probe, "m", "s")}
      where true ${extra} order by m.collected_at desc limit 1)`;
  };
  const column = (present: boolean | undefined, expression: string) => (present ? expression : "null::text");
  const rows = await sql.unsafe<({ id: number } & ServerFacts)[]>(`
    select c.id,
      ${column(tables?.node_role, latest("pg_node_role", "primary_role"))} as primary_role,
      ${column(tables?.node_role, latest("pg_node_role", "spock_node_name"))} as spock_node_name,
      ${column(tables?.server_info, latest("pg_server_info", "server_version"))} as version,
      ${column(tables?.os_info, latest("pg_sys_os_info", "name"))} as os,
      ${column(tables?.os_info, latest("pg_sys_os_info", "architecture"))} as platform,
      ${column(tables?.extension, latest("pg_extension", "extversion", "and m.extname = 'spock'"))} as spock_version
    from connections c`);
  return new Map(rows.map(({ id, ...facts }) => [id, facts]));
}

/**
 * Active alerts per connection: its own, and its server's whole-server alerts (`alertConnections`),
 * so that every connection of a server with an alert shows it.
 */
export async function activeAlertCounts(sql: Sql): Promise<Map<number, number>> {
  const rows = await sql.unsafe<{ connection_id: number; count: number }[]>(`
    select r.id as connection_id, count(*)::int as count
    from alerts a cross join lateral ${alertConnections("a")} r
    where a.status = 'active' group by r.id`);
  return new Map(rows.map((row) => [row.connection_id, row.count]));
}
