import { createHash } from "node:crypto";
import { changedRowsTables } from "@dbmon/datastore";
import { FOOTPRINT_REFRESH_SECONDS } from "@dbmon/monitoring";
import type { TransactionSql } from "postgres";
import type { ProbeSpec } from "./probes/types.js";
import { weekStart } from "./weeks.js";

// Changed-rows probes (`changedRows` in the catalogue): what a run stores. The layout and how the
// readers' view rebuilds every run are `@dbmon/datastore`'s (`queries/changed-rows.ts`); this
// module keeps to its rule: a run stores only changed rows, the objects it adds (`added`) and one row
// per object dropped (`gone`), referring to the keyframe, when it is in the keyframe's week, the
// previous run stored for the database is the one remembered here, and the objects dropped since the
// keyframe are no more than the run's own (at least MIN_DROPPED); otherwise it is a keyframe and
// stores every row. A row of dbmon's own footprint (`footprint` in the catalogue) changed only outside its
// `immediate` columns is held back until its stored version is FOOTPRINT_REFRESH_SECONDS old.

const HASH_BYTES = 8;
/** Objects that may be dropped since the keyframe of a database of fewer objects before a keyframe. */
const MIN_DROPPED = 16;

/** What this collector remembers of the last run it stored for one database. */
interface DatabaseSample {
  atMs: number;
  keyframeAtMs: number;
  /**
   * Objects dropped since the keyframe: the view still looks each one up in every later run (added
   * objects are live ones, looked up as the keyframe's are).
   */
  dropped: number;
  /** The sorted object keys (JSON of the key columns): what a dropped object's row names. */
  keys: string[];
  /** Each object's digest of its stored row, in sorted key order (HASH_BYTES each). */
  rows: Buffer;
  /** The same of the stored row's `immediate` columns (footprint rows; the whole row's otherwise). */
  immediate: Buffer;
  /** When each object's stored row was collected. */
  storedAtMs: Float64Array;
}

/**
 * The last stored run of each connection, probe and database: two digests and the key of each
 * object. Lost on restart (the next run is then a keyframe), and checked against the datastore at
 * every store, so a run another collector stored meanwhile is never taken for the previous one.
 */
export class ChangedRowsMemory {
  private readonly samples = new Map<string, Map<string, DatabaseSample>>();

  get(connectionId: number, probe: string): ReadonlyMap<string, DatabaseSample> | undefined {
    return this.samples.get(`${connectionId}/${probe}`);
  }

  set(connectionId: number, probe: string, databases: Map<string, DatabaseSample>): void {
    this.samples.set(`${connectionId}/${probe}`, databases);
  }

  /** A connection this collector no longer collects. */
  forgetConnection(connectionId: number): void {
    for (const key of this.samples.keys()) {
      if (key.startsWith(`${connectionId}/`)) {
        this.samples.delete(key);
      }
    }
  }
}

export type StoredRecord = Record<string, unknown>;

/** One database's rows of a run, sorted by object key, with their digests. */
interface DatabaseRun {
  records: StoredRecord[];
  keys: string[];
  rows: Buffer;
  immediate: Buffer;
  /** Whether each row is dbmon's own footprint. */
  footprint: boolean[];
  /** Two rows name the same object: the run cannot be compared object by object. */
  ambiguous: boolean;
}

function digest(text: string): Buffer {
  return createHash("sha1").update(text).digest().subarray(0, HASH_BYTES);
}

function databaseRuns(probe: ProbeSpec, records: readonly StoredRecord[]): Map<string, DatabaseRun> {
  const key = probe.changedRows?.key ?? [];
  const footprint = probe.changedRows?.footprint;
  const values = probe.columns.map((column) => column.name);
  const rowDigest = (record: StoredRecord, names: readonly string[]) =>
    digest(JSON.stringify(names.map((name) => record[name] ?? null)));
  const byDatabase = new Map<string, { key: string; record: StoredRecord }[]>();
  for (const record of records) {
    const database = String(record.database_name);
    const list = byDatabase.get(database) ?? [];
    list.push({ key: JSON.stringify(key.map((name) => record[name] ?? null)), record });
    byDatabase.set(database, list);
  }
  const runs = new Map<string, DatabaseRun>();
  for (const [database, list] of byDatabase) {
    list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const ambiguous = list.some((entry, index) => index > 0 && list[index - 1]?.key === entry.key);
    runs.set(database, {
      records: list.map((entry) => entry.record),
      keys: list.map((entry) => entry.key),
      rows: Buffer.concat(list.map((entry) => rowDigest(entry.record, values))),
      immediate: Buffer.concat(
        list.map((entry) => rowDigest(entry.record, footprint ? footprint.immediate : values)),
      ),
      footprint: list.map((entry) => footprint?.when(entry.record) ?? false),
      ambiguous,
    });
  }
  return runs;
}

/** What a run stores: its rows (all, or the changed ones) and its run records. */
export interface ChangedRowsPlan {
  records: StoredRecord[];
  runs: { database_name: string; keyframe_at: string }[];
  /** The memory after this run, once stored (a database whose rows failed to store is left out). */
  remember(failedDatabases: ReadonlySet<string>): Map<string, DatabaseSample>;
}

/**
 * Chooses what one connection's run stores. `remembered`: what this collector stored last (none after
 * a restart); the datastore's newest run of each remembered database is read in the transaction.
 */
export async function planChangedRows(
  tx: TransactionSql,
  probe: ProbeSpec,
  connectionId: number,
  collectedAt: Date,
  records: readonly StoredRecord[],
  remembered: ReadonlyMap<string, DatabaseSample> | undefined,
): Promise<ChangedRowsPlan> {
  const runs = databaseRuns(probe, records);
  const atMs = collectedAt.getTime();
  const week = weekStartMs(atMs);
  const candidates = [...runs.keys()].filter((database) => {
    const sample = remembered?.get(database);
    return sample !== undefined && weekStartMs(sample.keyframeAtMs) === week;
  });
  const newest = new Map<string, { atMs: number; keyframeAtMs: number }>();
  if (candidates.length > 0) {
    const table = tx.unsafe(`metrics."${changedRowsTables(probe.name).runs}"`);
    const found = await tx<{ database_name: string; at_ms: number; keyframe_ms: number }[]>`
      select d.name as database_name, (extract(epoch from r.collected_at) * 1000)::float8 as at_ms,
        (extract(epoch from r.keyframe_at) * 1000)::float8 as keyframe_ms
      from unnest(${candidates}::text[]) as d(name)
      cross join lateral (select collected_at, keyframe_at from ${table}
        where connection_id = ${connectionId} and database_name = d.name
          and collected_at >= ${new Date(week).toISOString()}::timestamptz
          and collected_at < ${collectedAt.toISOString()}::timestamptz
        order by collected_at desc limit 1) r`;
    for (const row of found) {
      newest.set(row.database_name, { atMs: row.at_ms, keyframeAtMs: row.keyframe_ms });
    }
  }
  const key = probe.changedRows?.key ?? [];
  const empty = Object.fromEntries(probe.columns.map((column) => [column.name, null]));
  const stored: StoredRecord[] = [];
  const runRecords: ChangedRowsPlan["runs"] = [];
  const next = new Map<string, DatabaseSample>();
  for (const [database, run] of runs) {
    const sample = remembered?.get(database);
    const previous = newest.get(database);
    const diff =
      sample !== undefined &&
      previous !== undefined &&
      !run.ambiguous &&
      previous.atMs === sample.atMs &&
      previous.keyframeAtMs === sample.keyframeAtMs
        ? compareObjects(sample.keys, run.keys)
        : null;
    const dropped = sample && diff ? sample.dropped + diff.dropped.length : 0;
    const kept = sample && diff && dropped <= Math.max(run.records.length, MIN_DROPPED) ? sample : null;
    const keyframeAtMs = kept ? kept.keyframeAtMs : atMs;
    // What is stored after this run: this run's rows, but where the stored row stays an older one.
    const after = {
      rows: Buffer.from(run.rows),
      immediate: Buffer.from(run.immediate),
      storedAtMs: new Float64Array(run.records.length).fill(atMs),
    };
    run.records.forEach((record, index) => {
      const was = kept && diff ? (diff.previousIndex[index] ?? -1) : -1;
      if (kept !== null && was >= 0) {
        const offset = index * HASH_BYTES;
        const from = was * HASH_BYTES;
        const same = run.rows.compare(kept.rows, from, from + HASH_BYTES, offset, offset + HASH_BYTES) === 0;
        const heldBack =
          run.footprint[index] === true &&
          run.immediate.compare(kept.immediate, from, from + HASH_BYTES, offset, offset + HASH_BYTES) === 0 &&
          atMs - (kept.storedAtMs[was] ?? 0) < FOOTPRINT_REFRESH_SECONDS * 1000;
        if (same || heldBack) {
          kept.rows.copy(after.rows, offset, from, from + HASH_BYTES);
          kept.immediate.copy(after.immediate, offset, from, from + HASH_BYTES);
          after.storedAtMs[index] = kept.storedAtMs[was] ?? atMs;
          return;
        }
      }
      stored.push({ ...record, added: kept !== null && was < 0, gone: false });
    });
    if (kept !== null && diff) {
      for (const dropped of diff.dropped) {
        const values = JSON.parse(dropped) as unknown[];
        stored.push({
          ...empty,
          connection_id: connectionId,
          collected_at: collectedAt.toISOString(),
          database_name: database,
          ...Object.fromEntries(key.map((name, index) => [name, values[index] ?? null])),
          added: false,
          gone: true,
        });
      }
    }
    runRecords.push({ database_name: database, keyframe_at: new Date(keyframeAtMs).toISOString() });
    if (!run.ambiguous) {
      next.set(database, {
        atMs,
        keyframeAtMs,
        dropped: kept ? dropped : 0,
        keys: run.keys,
        ...after,
      });
    }
  }
  return {
    records: stored,
    runs: runRecords,
    remember(failedDatabases) {
      for (const database of failedDatabases) {
        next.delete(database);
      }
      return next;
    },
  };
}

/**
 * The previous run's objects against this run's, both sorted: where each of this run's objects was
 * (-1: added), and the keys of those dropped.
 */
function compareObjects(
  previous: readonly string[],
  current: readonly string[],
): { previousIndex: Int32Array; dropped: string[] } {
  const previousIndex = new Int32Array(current.length).fill(-1);
  const dropped: string[] = [];
  let p = 0;
  for (let c = 0; c < current.length; c += 1) {
    const key = current[c] as string;
    while (p < previous.length && (previous[p] as string) < key) {
      dropped.push(previous[p] as string);
      p += 1;
    }
    if (p < previous.length && previous[p] === key) {
      previousIndex[c] = p;
      p += 1;
    }
  }
  dropped.push(...previous.slice(p));
  return { previousIndex, dropped };
}

function weekStartMs(atMs: number): number {
  return weekStart(new Date(atMs)).getTime();
}
