import type { Sql } from "@dbmon/datastore";
import { findProbeSpec, rowSources, sourceRowCondition } from "@dbmon/monitoring";

/** One collection of pg_stat_database for one database of a connection. */
export interface DatabaseSample {
  connection_id: number;
  /** The connection that collected the database (`rowSources`): one collection is one source's. */
  source_id: number;
  database_name: string;
  at: number;
  blks_hit: number;
  blks_read: number;
  xact_commit: number;
  xact_rollback: number;
  numbackends: number;
}

/** The sums of one collection over the databases of a connection. */
export type CollectionTotals = Omit<DatabaseSample, "database_name" | "source_id">;

const PG_STAT_DATABASE = findProbeSpec("pg_stat_database") ?? { scope: "database" as const };

/**
 * pg_stat_database samples per database and collection since `fromEpoch`, ordered by connection,
 * database and time, each database from the connection of the server that collects it. Empty when
 * nothing was collected yet.
 */
export async function databaseSamples(
  sql: Sql,
  connectionIds: readonly number[],
  fromEpoch: number,
): Promise<DatabaseSample[]> {
  const [exists] = await sql<
    { ok: boolean }[]
  >`select to_regclass('metrics.pg_stat_database') is not null as ok`;
  if (!exists?.ok) {
    return [];
  }
  return sql.unsafe<DatabaseSample[]>(
    `select s.connection_id, s.source_id, r.database_name, extract(epoch from r.collected_at)::float8 as at,
      sum(r.blks_hit)::float8 as blks_hit, sum(r.blks_read)::float8 as blks_read,
      sum(r.xact_commit)::float8 as xact_commit, sum(r.xact_rollback)::float8 as xact_rollback,
      sum(r.numbackends)::float8 as numbackends
    from ${rowSources(PG_STAT_DATABASE, "$1::int[]")} s
    join metrics.pg_stat_database r on r.connection_id = s.source_id and ${sourceRowCondition(PG_STAT_DATABASE, "r", "s")}
    where r.collected_at >= to_timestamp($2) and r.database_name is not null
    group by 1, 2, 3, r.collected_at
    order by 1, 3, r.collected_at`,
    [connectionIds as number[], fromEpoch],
  );
}

/** The samples summed per connection and collection, oldest first (for ratios of cumulative counters). */
export function collectionTotals(samples: readonly DatabaseSample[]): CollectionTotals[] {
  const totals = new Map<string, CollectionTotals>();
  for (const { database_name: _, source_id: __, ...sample } of samples) {
    const key = `${sample.connection_id}/${sample.at}`;
    const total = totals.get(key);
    if (total) {
      total.blks_hit += sample.blks_hit;
      total.blks_read += sample.blks_read;
      total.xact_commit += sample.xact_commit;
      total.xact_rollback += sample.xact_rollback;
      total.numbackends += sample.numbackends;
    } else {
      totals.set(key, { ...sample });
    }
  }
  return [...totals.values()].sort((a, b) => a.connection_id - b.connection_id || a.at - b.at);
}

export function hitRatio(totals: Pick<DatabaseSample, "blks_hit" | "blks_read">): number | null {
  const all = totals.blks_hit + totals.blks_read;
  return all > 0 ? (totals.blks_hit / all) * 100 : null;
}

export interface TransactionRate {
  at: number;
  commitsPerSec: number;
  commits: number;
  rollbacks: number;
}

/**
 * Transaction rates between consecutive collections. Counters are differenced per database before
 * the databases are added up: summed first, a database dropped (or created) between two collections
 * would make the difference meaningless, usually negative. A database whose counters went down (a
 * statistics reset) gives no rate for that interval; the others still count.
 */
export function transactionRates(samples: readonly DatabaseSample[]): TransactionRate[] {
  const byCollection = new Map<number, TransactionRate>();
  for (let index = 1; index < samples.length; index += 1) {
    const previous = samples[index - 1] as DatabaseSample;
    const current = samples[index] as DatabaseSample;
    if (
      previous.connection_id !== current.connection_id ||
      previous.database_name !== current.database_name
    ) {
      continue;
    }
    const seconds = current.at - previous.at;
    const commits = current.xact_commit - previous.xact_commit;
    const rollbacks = current.xact_rollback - previous.xact_rollback;
    if (seconds <= 0 || commits < 0 || rollbacks < 0) {
      continue;
    }
    const rate = byCollection.get(current.at) ?? {
      at: current.at,
      commitsPerSec: 0,
      commits: 0,
      rollbacks: 0,
    };
    rate.commitsPerSec += commits / seconds;
    rate.commits += commits;
    rate.rollbacks += rollbacks;
    byCollection.set(current.at, rate);
  }
  return [...byCollection.values()].sort((a, b) => a.at - b.at);
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
