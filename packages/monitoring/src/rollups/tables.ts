import { metricColumns } from "../probe-catalogue/metric-columns.js";
import type { ProbeSpec } from "../probe-catalogue/types.js";

/**
 * A rollup resolution and its table in the `metrics` schema. The table is shaped like a per-database
 * probe table (connection_id, database_name, collected_at = the bucket's start), so the collector
 * creates it, partitions it by week and drops expired weeks exactly as it does for probe tables.
 */
export interface RollupTable extends ProbeSpec {
  resolutionSeconds: number;
}

function rollupTable(resolutionSeconds: number, name: string, retentionDays: number): RollupTable {
  return {
    name,
    resolutionSeconds,
    scope: "database",
    intervalSeconds: resolutionSeconds,
    retentionDays,
    snapshot: false,
    columns: [
      { name: "probe", type: "text" },
      { name: "metric", type: "text" },
      { name: "sample_count", type: "integer" },
      { name: "sum", type: "double precision" },
      { name: "min", type: "double precision" },
      { name: "max", type: "double precision" },
      { name: "last", type: "double precision" },
      { name: "last_at", type: "timestamptz" },
    ],
  };
}

/**
 * Finest first. Kept far longer than raw rows (7 days for most probes), so that 30-day and yearly
 * views still have data once the raw rows are gone.
 */
export const rollupTables: readonly RollupTable[] = [
  rollupTable(300, "metric_rollups_5m", 35),
  rollupTable(3600, "metric_rollups_1h", 400),
];

/**
 * Whether a probe is rolled up at a resolution: a time series with something to measure, collected
 * more often than the resolution (a 5-minute rollup of a 5-minute probe would only copy it).
 */
export function rolledUp(probe: ProbeSpec, table: RollupTable): boolean {
  return (
    !probe.snapshot && probe.intervalSeconds < table.resolutionSeconds && metricColumns(probe).length > 0
  );
}

/**
 * The column rollups are kept per (with the connection): the database of a per-database probe, or a
 * server-wide probe's `datname`; other entities (tables, statements, sessions) are summed into it.
 */
export function rollupDatabaseColumn(probe: ProbeSpec): string | undefined {
  if (probe.scope === "database") {
    return "database_name";
  }
  return probe.columns.some((column) => column.name === "datname") ? "datname" : undefined;
}
