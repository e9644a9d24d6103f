import type { Sql } from "@dbmon/datastore";
import { advisoryLocks } from "@dbmon/datastore";
import { metricColumns, numericValue } from "../probe-catalogue/metric-columns.js";
import type { ProbeSpec } from "../probe-catalogue/types.js";
import { type RollupTable, rolledUp, rollupDatabaseColumn, rollupTables } from "./tables.js";

/**
 * A collection is stored at most this long after its time (a run's time limit and its insert): a
 * bucket is rolled up only once it ended this long ago, so that late rows are in it.
 */
export const ROLLUP_SETTLING_SECONDS = 5 * 60;

/** At most this much history per probe and resolution per pass: a first pass catches up in steps. */
const CATCH_UP_SECONDS = 24 * 3600;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Rolls one probe's rows collected in [$1, $2) up into `table`: per connection, database, metric
 * and bucket, the count, sum, min, max and last non-null value. One scan of the raw rows serves every
 * metric column (unpivoted per row).
 */
function rollupInsert(probe: ProbeSpec, table: RollupTable): string {
  const database = rollupDatabaseColumn(probe);
  const values = metricColumns(probe)
    .map((column) => `('${column.name}', ${numericValue(column, "r.")})`)
    .join(", ");
  const bucket = `to_timestamp(floor(extract(epoch from r.collected_at) / ${table.resolutionSeconds}) * ${table.resolutionSeconds})`;
  return `insert into metrics.${quote(table.name)} (connection_id, database_name, collected_at, probe, metric,
      sample_count, sum, min, max, last, last_at)
    select r.connection_id, ${database ? `coalesce(r.${quote(database)}, '')` : "''"}, ${bucket}, '${probe.name}', m.metric,
      count(*)::int, sum(m.value), min(m.value), max(m.value),
      (array_agg(m.value order by r.collected_at desc))[1], max(r.collected_at)
    from metrics.${quote(probe.name)} r
    cross join lateral (values ${values}) as m(metric, value)
    where r.collected_at >= $1::timestamptz and r.collected_at < $2::timestamptz
      and m.value is not null and m.value not in ('NaN', 'Infinity', '-Infinity')
    group by 1, 2, 3, 5`;
}

export interface RollupPass {
  /** Rollup rows written. */
  rows: number;
  /** False when another process held the lock (nothing was done). */
  ran: boolean;
}

/**
 * Brings the rollups of `probes` up to the last complete, settled bucket of each resolution. Each
 * (probe, resolution) step inserts its buckets and advances `metric_rollup_progress` in one
 * transaction, so a bucket is written exactly once even when a process dies between steps; one
 * process at a time over the datastore (advisory lock). The first pass starts at the probe's raw
 * retention and catches up a day per pass. `ensurePartition` creates the weekly partition a bucket
 * goes to (the caller's partition manager).
 */
export async function rollUpMetrics(
  sql: Sql,
  probes: readonly ProbeSpec[],
  now: Date,
  ensurePartition: (table: RollupTable, at: Date) => Promise<void>,
): Promise<RollupPass> {
  const session = await sql.reserve();
  try {
    const [lock] = await session<{ locked: boolean }[]>`
      select pg_try_advisory_lock(${advisoryLocks.metricRollups}) as locked`;
    if (!lock?.locked) {
      return { rows: 0, ran: false };
    }
    try {
      const existing = new Set(
        (
          await session<{ name: string }[]>`
            select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'metrics' and c.relkind in ('p', 'v')`
        ).map((row) => row.name),
      );
      const progress = new Map(
        (
          await session<{ key: string; through_ms: number }[]>`
            select probe_name || '/' || resolution_seconds as key,
              (extract(epoch from rolled_through) * 1000)::float8 as through_ms
            from metric_rollup_progress`
        ).map((row) => [row.key, row.through_ms]),
      );
      let rows = 0;
      for (const table of rollupTables) {
        if (!existing.has(table.name)) {
          continue;
        }
        const resolutionMs = table.resolutionSeconds * 1000;
        const settled = now.getTime() - ROLLUP_SETTLING_SECONDS * 1000;
        const through = Math.floor(settled / resolutionMs) * resolutionMs;
        for (const probe of probes) {
          if (!rolledUp(probe, table) || !existing.has(probe.name)) {
            continue;
          }
          const retentionStart = now.getTime() - probe.retentionDays * 24 * 3600 * 1000;
          const from =
            progress.get(`${probe.name}/${table.resolutionSeconds}`) ??
            Math.floor(retentionStart / resolutionMs) * resolutionMs;
          const to = Math.min(through, from + CATCH_UP_SECONDS * 1000);
          if (to <= from) {
            continue;
          }
          // A step spans at most a day: its first and last buckets name every week it writes to.
          await ensurePartition(table, new Date(from));
          await ensurePartition(table, new Date(to - resolutionMs));
          const fromIso = new Date(from).toISOString();
          const toIso = new Date(to).toISOString();
          await session`begin`;
          try {
            const inserted = await session.unsafe(rollupInsert(probe, table), [fromIso, toIso]);
            await session`
              insert into metric_rollup_progress (probe_name, resolution_seconds, rolled_through)
              values (${probe.name}, ${table.resolutionSeconds}, ${toIso}::timestamptz)
              on conflict (probe_name, resolution_seconds) do update set rolled_through = excluded.rolled_through`;
            await session`commit`;
            rows += inserted.count;
          } catch (error) {
            await session`rollback`;
            throw error;
          }
        }
      }
      return { rows, ran: true };
    } finally {
      await session`select pg_advisory_unlock(${advisoryLocks.metricRollups})`;
    }
  } finally {
    session.release();
  }
}
