import type { ProbeSpec } from "./types.js";

/**
 * Server-wide probes (server and host scope, but those that read the connected database) are
 * collected and stored once per server, under its representative connection; the others per
 * connection. The representative is the datastore's rule (`dbmon_server_connection`, migration 0028):
 * this decides only which probes it applies to.
 */
export function storedOncePerServer(probe: Pick<ProbeSpec, "scope" | "readsConnectedDatabase">): boolean {
  return probe.scope !== "database" && probe.readsConnectedDatabase !== true;
}

/**
 * The SQL expression of the connection whose rows of `probe` hold connection `connection`'s data (an
 * SQL expression too): `where connection_id = ${rowsConnection(probe, "$1")}` stays an index
 * condition evaluated once per scan.
 */
export function rowsConnection(
  probe: Pick<ProbeSpec, "scope" | "readsConnectedDatabase">,
  connection: string,
): string {
  return storedOncePerServer(probe) ? `public.dbmon_server_connection(${connection})` : connection;
}
