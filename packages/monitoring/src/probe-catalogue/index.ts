import { changedRowsTables } from "@dbmon/datastore";
import { databaseProbes } from "./database.js";
import { hostProbes } from "./host.js";
import { serverProbes } from "./server.js";
import type { DescribedProbeSpec } from "./types.js";

export { metricColumns, numericValue } from "./metric-columns.js";
export { rowSources, sourceRowCondition, storedOncePerServer } from "./stored-rows.js";
export {
  type ChangedRowsFootprint,
  type ColumnType,
  type DescribedProbeSpec,
  FOOTPRINT_REFRESH_SECONDS,
  type ProbeColumn,
  type ProbeScope,
  type ProbeSpec,
  SYSTEM_SCHEMAS,
  SYSTEM_SCHEMAS_SQL,
} from "./types.js";

/**
 * Every probe's metric table (16 server-wide, 11 per database, 10 host): what the collector stores
 * and the alerter and the API read. Kept here rather than in the collector, so that no reader
 * imports the collector.
 */
export const probeCatalogue: readonly DescribedProbeSpec[] = [
  ...serverProbes,
  ...databaseProbes,
  ...hostProbes,
];

const byName = new Map(probeCatalogue.map((spec) => [spec.name, spec]));

/** A probe of the catalogue by name. */
export function findProbeSpec(name: string): DescribedProbeSpec | undefined {
  return byName.get(name);
}

/**
 * Where a probe's runs are listed: `connection_id`, `collected_at` (and `database_name` for a database
 * probe), one row or more per run that stored rows. For a changed-rows probe its runs table, one row
 * per run and database; otherwise its own table. What reads only which runs exist (the newest
 * collection, the previous one) reads here: through a changed-rows view it would rebuild every run.
 */
export function probeRunsTable(name: string): string {
  const table = byName.get(name)?.changedRows ? changedRowsTables(name).runs : name;
  return `metrics."${table}"`;
}
