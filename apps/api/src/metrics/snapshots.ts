import type { Sql } from "@dbmon/datastore";

/** Per-collection sums of pg_stat_database over the databases of a connection. */
export interface DatabaseTotals {
  connection_id: number;
  database_name: string | null;
  at: number;
  blks_hit: number;
  blks_read: number;
  xact_commit: number;
  xact_rollback: number;
  numbackends: number;
}

/**
 * pg_stat_database totals per collection since `fromEpoch`, per connection (and per database when
 * `perDatabase`), oldest first. Empty when nothing was collected yet.
 */
export async function databaseTotals(
  sql: Sql,
  connectionIds: readonly number[],
  fromEpoch: number,
  perDatabase: boolean,
): Promise<DatabaseTotals[]> {
  const [exists] = await sql<
    { ok: boolean }[]
  >`select to_regclass('metrics.pg_stat_database') is not null as ok`;
  if (!exists?.ok) {
    return [];
  }
  const database = perDatabase ? "database_name" : "null::text";
  return sql.unsafe<DatabaseTotals[]>(
    `select connection_id, ${database} as database_name, extract(epoch from collected_at)::float8 as at,
       sum(blks_hit)::float8 as blks_hit, sum(blks_read)::float8 as blks_read,
       sum(xact_commit)::float8 as xact_commit, sum(xact_rollback)::float8 as xact_rollback,
       sum(numbackends)::float8 as numbackends
     from metrics.pg_stat_database
     where connection_id = any($1::int[]) and collected_at >= to_timestamp($2)
     group by 1, 2, collected_at
     order by 1, 2, collected_at`,
    [connectionIds as number[], fromEpoch],
  );
}

export function hitRatio(totals: Pick<DatabaseTotals, "blks_hit" | "blks_read">): number | null {
  const all = totals.blks_hit + totals.blks_read;
  return all > 0 ? (totals.blks_hit / all) * 100 : null;
}

/** Rates between consecutive collections; a counter going down (a reset) gives no rate. */
export function transactionRates(totals: readonly DatabaseTotals[]) {
  const rates: { at: number; commitsPerSec: number; rollbacks: number; commits: number }[] = [];
  for (let index = 1; index < totals.length; index += 1) {
    const previous = totals[index - 1] as DatabaseTotals;
    const current = totals[index] as DatabaseTotals;
    const seconds = current.at - previous.at;
    const commits = current.xact_commit - previous.xact_commit;
    const rollbacks = current.xact_rollback - previous.xact_rollback;
    if (seconds > 0 && commits >= 0 && rollbacks >= 0) {
      rates.push({ at: current.at, commitsPerSec: commits / seconds, rollbacks, commits });
    }
  }
  return rates;
}

/** Groups values into buckets of `width` seconds from `start` and averages each bucket. */
export function bucketAverages<T>(
  items: readonly T[],
  at: (item: T) => number,
  values: (item: T) => number[],
  start: number,
  width: number,
): { time: number; values: number[] }[] {
  const buckets = new Map<number, { sums: number[]; count: number }>();
  for (const item of items) {
    const bucket = start + Math.floor((at(item) - start) / width) * width;
    const entry = buckets.get(bucket) ?? { sums: values(item).map(() => 0), count: 0 };
    values(item).forEach((value, index) => {
      entry.sums[index] = (entry.sums[index] ?? 0) + value;
    });
    entry.count += 1;
    buckets.set(bucket, entry);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([time, entry]) => ({ time, values: entry.sums.map((sum) => sum / entry.count) }));
}
