import type { Sql } from "@dbmon/datastore";
import { findProbeSpec, metricColumns, type ProbeColumn, type ProbeSpec } from "@dbmon/monitoring";

export { metricColumns, numericValue } from "@dbmon/monitoring";

import { InvalidInput } from "../errors.js";

/**
 * Identifiers of probes and columns come from the probe catalogue only: a name from a request
 * is looked up there and the catalogue's spelling is what reaches SQL.
 */
export function catalogueProbe(name: string, notFound: (name: string) => string): ProbeSpec {
  const probe = findProbeSpec(name);
  if (!probe) {
    throw new InvalidInput(notFound(name));
  }
  return probe;
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

/** Whether the collector has created the probe's table yet (no table: nothing collected). */
export async function probeTableExists(sql: Sql, probe: ProbeSpec): Promise<boolean> {
  const [row] = await sql<
    { exists: boolean }[]
  >`select to_regclass(${probeTable(probe)}) is not null as exists`;
  return row?.exists === true;
}
