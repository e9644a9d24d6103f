import { findProbeSpec, type ProbeColumn, type ProbeSpec, type Sql } from "@dbmon/datastore";
import { InvalidInput } from "../errors.js";

/**
 * Identifiers of probes and columns come from the collector's catalogue only: a name from a request
 * is looked up there and the catalogue's spelling is what reaches SQL.
 */
export function catalogueProbe(name: string, notFound: (name: string) => string): ProbeSpec {
  const probe = findProbeSpec(name);
  if (!probe) {
    throw new InvalidInput(notFound(name));
  }
  return probe;
}

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

/** The columns /metrics/query and /metrics/baselines may aggregate. */
export function metricColumns(probe: ProbeSpec): ProbeColumn[] {
  return probe.columns.filter(
    (column) => NUMERIC_TYPES.has(column.type) && !IDENTIFYING_COLUMNS.has(column.name),
  );
}

/** The metric columns asked for, or every one; 400 for a name that is not one. */
export function requestedMetrics(probe: ProbeSpec, names: readonly string[] | undefined): ProbeColumn[] {
  const available = metricColumns(probe);
  if (!names || names.length === 0) {
    return available;
  }
  return names.map((name) => {
    const column = available.find((candidate) => candidate.name === name);
    if (!column) {
      throw new InvalidInput(`metric "${name}" not found in probe "${probe.name}"`);
    }
    return column;
  });
}

/** Text columns that tell a probe's entities apart (with database_name for per-database probes). */
export function dimensionColumns(probe: ProbeSpec): string[] {
  return [
    ...(probe.scope === "database" ? ["database_name"] : []),
    ...probe.columns.filter((column) => column.type === "text").map((column) => column.name),
  ];
}

export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `metrics."<probe>"`, the probe's table. */
export function probeTable(probe: ProbeSpec): string {
  return `metrics.${quoted(probe.name)}`;
}

/** SQL giving a column's value as float8 (intervals as seconds). */
export function numericValue(column: ProbeColumn, alias = ""): string {
  const ref = `${alias}${quoted(column.name)}`;
  return column.type === "interval" ? `extract(epoch from ${ref})::float8` : `${ref}::float8`;
}

/** Whether the collector has created the probe's table yet (no table: nothing collected). */
export async function probeTableExists(sql: Sql, probe: ProbeSpec): Promise<boolean> {
  const [row] = await sql<
    { exists: boolean }[]
  >`select to_regclass(${probeTable(probe)}) is not null as exists`;
  return row?.exists === true;
}
