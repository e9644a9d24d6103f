import { databaseSources, readsDatabaseRow, serverSources } from "@dbmon/datastore";
import type { ProbeSpec } from "./types.js";

/**
 * Server-wide probes (server and host scope, but those that read the connected database) are
 * collected and stored once per server, under its representative connection; the others per
 * connection. The representative is the datastore's rule (`dbmon_server_connection`, migration 0029):
 * this decides only which probes it applies to.
 */
export function storedOncePerServer(probe: Pick<ProbeSpec, "scope" | "readsConnectedDatabase">): boolean {
  return probe.scope !== "database" && probe.readsConnectedDatabase !== true;
}

/**
 * SQL: rows (connection_id, source_id, …) giving, for each connection of the int[] expression
 * `connections`, the connections whose rows of `probe` it reads: the server's representative for a
 * server-wide probe, itself for a per-connection one, every connection of its server for a database
 * probe (each database read from the connection collecting it: `sourceRowCondition`). Joined on
 * `source_id = rows.connection_id`, each lookup stays an index scan.
 */
export function rowSources(
  probe: Pick<ProbeSpec, "scope" | "readsConnectedDatabase">,
  connections: string,
): string {
  if (probe.scope === "database") {
    return databaseSources(connections);
  }
  return storedOncePerServer(probe)
    ? serverSources(connections)
    : `(select reader.id as connection_id, reader.id as source_id from unnest(${connections}) as reader(id))`;
}

/**
 * SQL condition on a row `row` joined to `rowSources` as `sources`: a database probe's row counts for
 * the reader only from the connection that collects its database.
 */
export function sourceRowCondition(
  probe: Pick<ProbeSpec, "scope">,
  row: string,
  sources: string,
  databaseColumn = "database_name",
): string {
  return probe.scope === "database" ? readsDatabaseRow(row, sources, databaseColumn) : "true";
}
