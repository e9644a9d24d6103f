import type { Sql } from "@dbmon/datastore";
import type { ProbeSpec } from "../probe-catalogue/types.js";
import { type RollupTable, rolledUp, rollupTables } from "./tables.js";

export interface RollupCoverage {
  table: RollupTable;
  /** Buckets before this instant are in the rollup table; later rows are read raw. */
  rolledThroughMs: number;
}

/**
 * The coarsest rollup of a probe no coarser than `maxResolutionSeconds` (the width of the buckets a
 * reader asks for), with how far it is complete; undefined when none has been written yet.
 */
export async function rollupCoverage(
  sql: Sql,
  probe: ProbeSpec,
  maxResolutionSeconds: number,
): Promise<RollupCoverage | undefined> {
  const candidates = rollupTables.filter(
    (table) => table.resolutionSeconds <= maxResolutionSeconds && rolledUp(probe, table),
  );
  if (candidates.length === 0) {
    return undefined;
  }
  const rows = await sql<{ resolution_seconds: number; through_ms: number }[]>`
    select resolution_seconds, (extract(epoch from rolled_through) * 1000)::float8 as through_ms
    from metric_rollup_progress
    where probe_name = ${probe.name} and resolution_seconds = any(${candidates.map((table) => table.resolutionSeconds)}::int[])
    order by resolution_seconds desc limit 1`;
  const [row] = rows;
  const table = candidates.find((candidate) => candidate.resolutionSeconds === row?.resolution_seconds);
  return row && table ? { table, rolledThroughMs: row.through_ms } : undefined;
}
