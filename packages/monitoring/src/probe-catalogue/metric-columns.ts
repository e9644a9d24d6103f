import type { ProbeColumn, ProbeSpec } from "./types.js";

/** Numeric columns that identify things rather than measure them. */
const IDENTIFYING_COLUMNS = new Set([
  "pid",
  "leader_pid",
  "receiver_pid",
  "queryid",
  "datid",
  "dbid",
  "userid",
  "usesysid",
  "relid",
  "indexrelid",
  "funcid",
  "subid",
  "id",
  "datdba",
  "dattablespace",
  "datfrozenxid",
  "datminmxid",
  "client_port",
  "sender_port",
  "upstream_port",
  "publisher_port",
  "line_number",
  "rule_number",
  "map_number",
  "sourceline",
  "server_version_num",
  "spock_node_id",
  "remote_origin",
  "local_origin",
  "remote_xid",
  "command_counter",
  "receive_start_tli",
  "received_tli",
  "timeline_id",
]);

const NUMERIC_TYPES = new Set(["integer", "bigint", "numeric", "double precision", "interval"]);

/** The columns that measure something: what /metrics/query, /metrics/baselines and rollups aggregate. */
export function metricColumns(probe: ProbeSpec): ProbeColumn[] {
  return probe.columns.filter(
    (column) => NUMERIC_TYPES.has(column.type) && !IDENTIFYING_COLUMNS.has(column.name),
  );
}

/** SQL giving a column's value as float8 (intervals as seconds). */
export function numericValue(column: ProbeColumn, alias = ""): string {
  const ref = `${alias}"${column.name.replaceAll('"', '""')}"`;
  return column.type === "interval" ? `extract(epoch from ${ref})::float8` : `${ref}::float8`;
}
