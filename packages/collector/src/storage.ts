import { createHash } from "node:crypto";
import {
  advisoryLocks,
  changedRowsTables,
  ensureChangedRowsTables,
  type Sql,
  TEXT_ARRAY_OID,
} from "@dbmon/datastore";
import { storedOncePerServer } from "@dbmon/monitoring";
import type { ParameterOrJSON, TransactionSql } from "postgres";
import { type ChangedRowsMemory, planChangedRows } from "./changed-rows.js";
import type { CollectorLogger } from "./logger.js";
import type { CollectedRun, OutageBuffer } from "./outage-buffer.js";
import type { ProbeRow, ProbeSpec } from "./probes/types.js";
import { describeError } from "./sessions.js";
import { WEEK_MS, weekStart } from "./weeks.js";

const INSERT_CHUNK_ROWS = 500;

export const METRICS_SCHEMA = "metrics";

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function tableName(probe: ProbeSpec): string {
  return `${ident(METRICS_SCHEMA)}.${ident(probe.name)}`;
}

/**
 * The partitioned tables holding a probe's rows: its table, or for a changed-rows probe (whose
 * `metrics.<probe>` is a view) its rows and runs tables. Partitions and retention are per table.
 */
export function partitionedTables(probe: ProbeSpec): string[] {
  if (!probe.changedRows) {
    return [probe.name];
  }
  const { rows, runs } = changedRowsTables(probe.name);
  return [rows, runs];
}

/** Key columns every probe table starts with. */
function keyColumns(probe: ProbeSpec): string[] {
  return probe.scope === "database"
    ? ["connection_id", "database_name", "collected_at"]
    : ["connection_id", "collected_at"];
}

/**
 * Creates the `metrics` schema and one table per probe, range-partitioned by `collected_at`, and adds
 * columns a newer registry declares. Idempotent; safe when several collectors start at once.
 */
export async function ensureMetricsTables(sql: Sql, probes: readonly ProbeSpec[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${advisoryLocks.metricsDdl})`;
    await tx.unsafe(`create schema if not exists ${ident(METRICS_SCHEMA)}`);
    for (const probe of probes) {
      const table = tableName(probe);
      const columns = [
        "connection_id integer not null references public.connections(id) on delete cascade",
        ...(probe.scope === "database" ? ["database_name text not null"] : []),
        "collected_at timestamptz not null",
        ...probe.columns.map((column) => `${ident(column.name)} ${column.type}`),
      ];
      if (probe.changedRows) {
        await ensureChangedRowsTables(tx, {
          schema: METRICS_SCHEMA,
          probe: probe.name,
          columnDefinitions: columns,
          columns: probe.columns.map((column) => column.name),
          key: probe.changedRows.key,
        });
        continue;
      }
      await tx.unsafe(
        `create table if not exists ${table} (${columns.join(", ")}) partition by range (collected_at)`,
      );
      for (const column of probe.columns) {
        await tx.unsafe(`alter table ${table} add column if not exists ${ident(column.name)} ${column.type}`);
      }
      await tx.unsafe(
        `create index if not exists ${ident(`${probe.name}_connection_collected_idx`)}
           on ${table} (connection_id, collected_at desc)`,
      );
    }
    // What the trigger moving a server's rows to its new representative reads (migration 0029).
    const names = (wanted: boolean) =>
      probes.filter((probe) => storedOncePerServer(probe) === wanted).map((probe) => probe.name);
    await tx`
      insert into server_wide_probes (probe_name) select unnest(${names(true)}::text[])
      on conflict do nothing`;
    await tx`delete from server_wide_probes where probe_name = any(${names(false)}::text[])`;
  });
}

export { weekStart } from "./weeks.js";

function partitionName(table: string, start: Date): string {
  return `${table}_${start.toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/**
 * Weekly partitions (Monday to Monday, UTC), created ahead of need: `ensureWeeks` remembers what
 * exists so that a store checks only an in-memory set.
 */
export class PartitionManager {
  private readonly known = new Set<string>();

  constructor(
    private readonly sql: Sql,
    private readonly probes: readonly ProbeSpec[],
  ) {}

  /** The partitions of the week holding `at` and of the following week, for every probe. */
  async ensureAround(at: Date): Promise<void> {
    const start = weekStart(at);
    await this.ensureWeeks([start, new Date(start.getTime() + WEEK_MS)], this.probes);
  }

  async ensureFor(probe: ProbeSpec, at: Date): Promise<void> {
    const start = weekStart(at);
    if (partitionedTables(probe).some((table) => !this.known.has(partitionName(table, start)))) {
      await this.ensureWeeks([start], [probe]);
    }
  }

  private async ensureWeeks(starts: Date[], probes: readonly ProbeSpec[]): Promise<void> {
    const missing = probes
      .flatMap(partitionedTables)
      .flatMap((table) =>
        starts
          .filter((start) => !this.known.has(partitionName(table, start)))
          .map((start) => ({ table, start })),
      );
    if (missing.length === 0) {
      return;
    }
    await this.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${advisoryLocks.metricsDdl})`;
      for (const { table, start } of missing) {
        const end = new Date(start.getTime() + WEEK_MS);
        await tx.unsafe(
          `create table if not exists ${ident(METRICS_SCHEMA)}.${ident(partitionName(table, start))}
             partition of ${ident(METRICS_SCHEMA)}.${ident(table)}
             for values from ('${start.toISOString()}') to ('${end.toISOString()}')`,
        );
      }
    });
    for (const { table, start } of missing) {
      this.known.add(partitionName(table, start));
    }
  }
}

/** SHA-256 of the rows as canonical JSON: what a snapshot probe compares between runs. */
export function snapshotHash(rows: readonly ProbeRow[]): string {
  const canonical = rows.map((row) =>
    Object.keys(row)
      .sort()
      .map((key) => [key, row[key] instanceof Date ? (row[key] as Date).toISOString() : row[key]]),
  );
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

export interface StoreResult {
  stored: number;
  failed: number;
  /** A snapshot probe whose content had not changed: nothing was stored. */
  unchanged: boolean;
  /** The collector no longer holds the connection's lease: nothing was stored. */
  leaseLost: boolean;
}

/** One run stored for several connections (`storeServerRun`). */
export interface ServerStoreResult {
  /** Rows stored, over all connections. */
  stored: number;
  failed: number;
  /** Snapshot probes: connections whose last stored snapshot had this content (nothing stored). */
  unchanged: number[];
  /** Connections whose lease this collector no longer holds (nothing stored for them). */
  leaseLost: number[];
}

/**
 * Stores one run of a probe for a connection: multi-row inserts, falling back to row-by-row when a
 * batch fails so that one bad row loses only itself. Snapshot probes store only when the content hash
 * differs from the last stored snapshot. The run is recorded in `probe_runs` in the same transaction.
 *
 * With `leaseHolder`, the run is stored only while the connection's lease names that collector, and
 * the lease row is locked until the run is stored: a collector that has just given the connection
 * away (rebalancing) or lost it to another (it stalled past its lease) stores nothing more, and the
 * collector taking it over reads `probe_runs` only after the last run stored, so two collectors
 * never both store collections of one connection. A lapsed lease that no one has taken yet still
 * names its holder: storing then duplicates nothing, and its next renewal keeps it.
 */
export async function storeProbeRun(
  sql: Sql,
  logger: CollectorLogger,
  probe: ProbeSpec,
  connectionId: number,
  collectedAt: Date,
  rows: readonly ProbeRow[] | null,
  leaseHolder?: string,
  memory?: ChangedRowsMemory,
): Promise<StoreResult> {
  const result = await storeServerRun(
    sql,
    logger,
    probe,
    [connectionId],
    collectedAt,
    rows,
    leaseHolder,
    memory,
  );
  return {
    stored: result.stored,
    failed: result.failed,
    unchanged: result.unchanged.length > 0,
    leaseLost: result.leaseLost.length > 0,
  };
}

/**
 * Stores one run for each of the given connections, in one transaction (as `storeProbeRun`). A
 * changed-rows probe stores the rows that changed since the connection's previous run as `memory`
 * holds it (`planChangedRows`); without a memory (or after a restart) every row, as keyframes.
 */
export async function storeServerRun(
  sql: Sql,
  logger: CollectorLogger,
  probe: ProbeSpec,
  connectionIds: readonly number[],
  collectedAt: Date,
  rows: readonly ProbeRow[] | null,
  leaseHolder?: string,
  memory?: ChangedRowsMemory,
): Promise<ServerStoreResult> {
  const ids = [...new Set(connectionIds)].sort((a, b) => a - b);
  const remember: (() => void)[] = [];
  const stored = await sql.begin(async (tx) => {
    const { held, leaseLost } = await lockLeased(tx, ids, leaseHolder);
    const result = await storeRunIn(tx, logger, probe, held, collectedAt, rows, memory, remember);
    return { ...result, leaseLost };
  });
  // Only once committed: a memory of rows that were rolled back would skip storing them again.
  for (const done of remember) {
    done();
  }
  return stored;
}

/** One run of a server-wide probe (`storeServerWideRun`). */
export interface ServerWideStoreResult {
  stored: number;
  failed: number;
  /** A snapshot probe whose content had not changed: nothing was stored. */
  unchanged: boolean;
  /**
   * The connection the run was stored under, the server's representative; null when it is not one
   * of the given connections held by this collector (another group or collector stores the server).
   */
  storedUnder: number | null;
}

/**
 * Stores one run of a server-wide probe once for its server: under the server's representative
 * (`dbmon_server_connection`, the lowest-id monitored connection at its address) when it is one of
 * `connectionIds` (a server group's members) and this collector holds its lease; nothing otherwise,
 * so that of two groups at one address (different credentials) only the representative's stores.
 * The shared `serverRows` lock waits for a change of the server's connections in progress, whose
 * trigger moves the server's rows to a new representative, so no run lands under the old one.
 */
export async function storeServerWideRun(
  sql: Sql,
  logger: CollectorLogger,
  probe: ProbeSpec,
  connectionIds: readonly number[],
  collectedAt: Date,
  rows: readonly ProbeRow[] | null,
  leaseHolder?: string,
): Promise<ServerWideStoreResult> {
  const ids = [...new Set(connectionIds)].sort((a, b) => a - b);
  return sql.begin(async (tx) => {
    const { held } = await lockLeased(tx, ids, leaseHolder);
    const [first] = held;
    if (first === undefined) {
      return { stored: 0, failed: 0, unchanged: false, storedUnder: null };
    }
    // After the connections' locks, as a change of connections takes them before this lock.
    await tx`select pg_advisory_xact_lock_shared(${advisoryLocks.serverRows})`;
    const [representative] = await tx<{ id: number }[]>`select dbmon_server_connection(${first}) as id`;
    const under = representative?.id ?? first;
    if (!held.includes(under)) {
      return { stored: 0, failed: 0, unchanged: false, storedUnder: null };
    }
    const result = await storeRunIn(tx, logger, probe, [under], collectedAt, rows);
    return {
      stored: result.stored,
      failed: result.failed,
      unchanged: result.unchanged.length > 0,
      storedUnder: under,
    };
  });
}

/**
 * With `leaseHolder`, locks the connections and their leases and answers those whose lease names that
 * collector (all of them without one).
 *
 * The connections' rows first, as the inserts' foreign keys would: a lease cycle taking one (FOR
 * UPDATE of the connection, then the lease) or its deletion (the connection, then by cascade the
 * lease) locks in that order too, so neither can deadlock with a run being stored.
 */
async function lockLeased(
  tx: TransactionSql,
  ids: readonly number[],
  leaseHolder: string | undefined,
): Promise<{ held: number[]; leaseLost: number[] }> {
  if (leaseHolder === undefined) {
    return { held: [...ids], leaseLost: [] };
  }
  await tx`select 1 from connections where id = any(${ids}::int[]) order by id for key share`;
  const leased = await tx<{ connection_id: number }[]>`
    select connection_id from collector_leases
    where connection_id = any(${ids}::int[]) and holder = ${leaseHolder}
    order by connection_id
    for share`;
  const leasedIds = new Set(leased.map((row) => row.connection_id));
  return { held: ids.filter((id) => leasedIds.has(id)), leaseLost: ids.filter((id) => !leasedIds.has(id)) };
}

/**
 * Stores the run's rows under each of `ids` and records the run in `probe_runs`, within `tx`. What a
 * changed-rows probe must remember of the run is pushed to `remember`, to be done once committed.
 */
async function storeRunIn(
  tx: TransactionSql,
  logger: CollectorLogger,
  probe: ProbeSpec,
  ids: readonly number[],
  collectedAt: Date,
  rows: readonly ProbeRow[] | null,
  memory?: ChangedRowsMemory,
  remember: (() => void)[] = [],
): Promise<Omit<ServerStoreResult, "leaseLost">> {
  const result: ServerStoreResult = { stored: 0, failed: 0, unchanged: [], leaseLost: [] };
  if (ids.length === 0) {
    return result;
  }
  const columns = [...keyColumns(probe), ...probe.columns.map((column) => column.name)];
  const hash = probe.snapshot && rows ? snapshotHash(rows) : null;
  const at = collectedAt.toISOString();
  let changed = ids;
  if (hash !== null) {
    const previous = await tx<{ connection_id: number; snapshot_hash: string | null }[]>`
      select connection_id, snapshot_hash from probe_runs
      where connection_id = any(${ids}::int[]) and probe_name = ${probe.name}
      order by connection_id
      for update`;
    const same = new Set(
      previous.filter((row) => row.snapshot_hash === hash).map((row) => row.connection_id),
    );
    changed = ids.filter((id) => !same.has(id));
    result.unchanged = ids.filter((id) => same.has(id));
  }
  if (probe.changedRows) {
    for (const connectionId of changed) {
      remember.push(
        await storeChangedRows(tx, logger, probe, connectionId, collectedAt, rows, memory, result),
      );
    }
  } else if (rows && rows.length > 0 && changed.length > 0) {
    const values = rowValues(probe, rows);
    const records = changed.flatMap((connectionId) =>
      values.map((value) => ({ connection_id: connectionId, collected_at: at, ...value })),
    );
    await insertRecords(tx, logger, tableName(probe), probe, columns, records, result);
  }
  const storedSnapshot = new Set(hash === null ? [] : changed);
  const snapshotAt = ids.map((id) => (storedSnapshot.has(id) ? at : null));
  await tx`
    insert into probe_runs (connection_id, probe_name, last_run_at, snapshot_hash, snapshot_collected_at)
    select connection_id, ${probe.name}, ${at}::timestamptz, ${hash}::text, snapshot_at::timestamptz
    from unnest(${ids as number[]}::int[], ${tx.typed(snapshotAt, TEXT_ARRAY_OID)}::text[]) as run(connection_id, snapshot_at)
    on conflict (connection_id, probe_name) do update set
      last_run_at = excluded.last_run_at,
      snapshot_hash = case when excluded.snapshot_collected_at is not null
        then excluded.snapshot_hash else probe_runs.snapshot_hash end,
      snapshot_collected_at = coalesce(excluded.snapshot_collected_at, probe_runs.snapshot_collected_at)`;
  return { stored: result.stored, failed: result.failed, unchanged: result.unchanged };
}

/**
 * One connection's run of a changed-rows probe: its changed rows (or a keyframe) and one run record
 * per database with rows. Answers what to remember once the transaction has committed.
 */
async function storeChangedRows(
  tx: TransactionSql,
  logger: CollectorLogger,
  probe: ProbeSpec,
  connectionId: number,
  collectedAt: Date,
  rows: readonly ProbeRow[] | null,
  memory: ChangedRowsMemory | undefined,
  result: ServerStoreResult,
): Promise<() => void> {
  if (!rows || rows.length === 0) {
    return () => memory?.set(connectionId, probe.name, new Map());
  }
  const at = collectedAt.toISOString();
  const records = rowValues(probe, rows).map((value) => ({
    connection_id: connectionId,
    collected_at: at,
    ...value,
  }));
  const plan = await planChangedRows(
    tx,
    probe,
    connectionId,
    collectedAt,
    records,
    memory?.get(connectionId, probe.name),
  );
  const failed = new Set<string>();
  const { rows: rowsTable, runs: runsTable } = changedRowsTables(probe.name);
  await insertRecords(
    tx,
    logger,
    `${ident(METRICS_SCHEMA)}.${ident(rowsTable)}`,
    probe,
    [...keyColumns(probe), ...probe.columns.map((column) => column.name), "added", "gone"],
    plan.records as Record<string, StoredValue>[],
    result,
    (record) => failed.add(String(record.database_name)),
  );
  await tx`
    insert into ${tx.unsafe(`${ident(METRICS_SCHEMA)}.${ident(runsTable)}`)}
      (connection_id, database_name, collected_at, keyframe_at)
    select ${connectionId}, database_name, ${at}::timestamptz, keyframe_at::timestamptz
    from unnest(${plan.runs.map((run) => run.database_name)}::text[], ${plan.runs.map((run) => run.keyframe_at)}::text[])
      as run(database_name, keyframe_at)`;
  return () => memory?.set(connectionId, probe.name, plan.remember(failed));
}

type StoredValue = ParameterOrJSON<never>;

/** The probe's columns of each row as the datastore takes them (key columns but the connection's). */
function rowValues(probe: ProbeSpec, rows: readonly ProbeRow[]): Record<string, StoredValue>[] {
  const jsonColumns = new Set(
    probe.columns.filter((column) => column.type === "jsonb").map((column) => column.name),
  );
  return rows.map((row) => {
    const record: Record<string, StoredValue> = {};
    if (probe.scope === "database") {
      record.database_name = String(row.database_name);
    }
    for (const { name } of probe.columns) {
      const raw = row[name] ?? null;
      // ISO text and JSON text: the datastore client's serializers may be replaced (Drizzle does).
      const value = raw instanceof Date ? raw.toISOString() : raw;
      record[name] = (jsonColumns.has(name) && value !== null ? JSON.stringify(value) : value) as StoredValue;
    }
    return record;
  });
}

/** Multi-row inserts in chunks; a failing chunk is stored row by row so one bad row loses only itself. */
async function insertRecords(
  tx: TransactionSql,
  logger: CollectorLogger,
  target: string,
  probe: ProbeSpec,
  columns: string[],
  records: Record<string, StoredValue>[],
  result: ServerStoreResult,
  onFailed?: (record: Record<string, StoredValue>) => void,
): Promise<void> {
  const table = tx.unsafe(target);
  for (let offset = 0; offset < records.length; offset += INSERT_CHUNK_ROWS) {
    const chunk = records.slice(offset, offset + INSERT_CHUNK_ROWS);
    try {
      await tx.savepoint((sp) => sp`insert into ${table} ${sp(chunk, columns)}`);
      result.stored += chunk.length;
    } catch (batchError) {
      logger.debug({ probe: probe.name, err: batchError }, "batch insert failed; storing row by row");
      for (const record of chunk) {
        try {
          await tx.savepoint((sp) => sp`insert into ${table} ${sp(record, columns)}`);
          result.stored += 1;
        } catch (rowError) {
          result.failed += 1;
          onFailed?.(record);
          logger.warn(
            {
              probe: probe.name,
              connectionId: record.connection_id,
              err: rowError instanceof Error ? rowError.message : rowError,
            },
            "a collected row could not be stored",
          );
        }
      }
    }
  }
}

/** Each connection's last run of each probe (epoch ms), by whichever collector ran it. */
export async function lastRunsOf(
  sql: Sql,
  connectionIds: readonly number[],
): Promise<Map<number, Map<string, number>>> {
  const rows = await sql<{ connection_id: number; probe_name: string; last_run_ms: number }[]>`
    select connection_id, probe_name, (extract(epoch from last_run_at) * 1000)::float8 as last_run_ms
    from probe_runs where connection_id = any(${connectionIds}::int[])`;
  const runs = new Map<number, Map<string, number>>();
  for (const row of rows) {
    const connection = runs.get(row.connection_id) ?? new Map<string, number>();
    connection.set(row.probe_name, row.last_run_ms);
    runs.set(row.connection_id, connection);
  }
  return runs;
}

/** What storing a collected run needs of the collector. */
export interface RunStoreDeps {
  sql: Sql;
  logger: CollectorLogger;
  partitions: PartitionManager;
  /** This collector's name in `collector_leases`. */
  leaseHolder: string;
  /** Where runs wait while the datastore is unavailable, and what tells such an error. */
  outage?: { buffer: OutageBuffer; unavailable(error: unknown): boolean };
  /** The previous runs of changed-rows probes (absent: every row is stored). */
  changedRows?: ChangedRowsMemory;
}

/**
 * Records a run that had nothing to store (a probe skipping a database where what it reads is absent)
 * in one statement: `probe_runs` only, while this collector holds the connection's lease, so staleness
 * sees the probe running. Not worth the outage buffer: the next such run records it again.
 */
export async function recordRunWithoutRows(
  deps: RunStoreDeps,
  probe: ProbeSpec,
  connectionId: number,
  collectedAt: Date,
): Promise<void> {
  try {
    await deps.sql`
      insert into probe_runs (connection_id, probe_name, last_run_at)
      select connection_id, ${probe.name}, ${collectedAt.toISOString()}::timestamptz
      from collector_leases where connection_id = ${connectionId} and holder = ${deps.leaseHolder}
      on conflict (connection_id, probe_name) do update set last_run_at = excluded.last_run_at`;
  } catch (error) {
    const unavailable = deps.outage?.unavailable(error) ?? false;
    deps.logger[unavailable ? "debug" : "error"](
      { connectionId, probe: probe.name, err: describeError(error) },
      "recording a probe run failed",
    );
  }
}

/**
 * Stores a collected run (`storeServerRun`; a server-wide probe's once for the server of the
 * connections, `storeServerWideRun`), creating its partition first, and logs what went wrong instead
 * of throwing; answers the connections it was stored for (under). While the datastore is unavailable
 * the run is kept in the outage buffer (and counts as stored for the schedule: it was collected); runs
 * already waiting there go first, so this one queues too.
 */
export async function storeCollectedRun(
  deps: RunStoreDeps,
  probe: ProbeSpec,
  connectionIds: readonly number[],
  collectedAt: Date,
  rows: readonly ProbeRow[] | null,
  options: { serverWide?: boolean } = {},
): Promise<number[]> {
  const run: CollectedRun = {
    probe,
    connectionIds,
    collectedAt,
    rows,
    serverWide: options.serverWide === true,
  };
  if (deps.outage?.buffer.holding) {
    deps.outage.buffer.add(run, "runs are waiting");
    return [...connectionIds];
  }
  try {
    return await writeCollectedRun(deps, run);
  } catch (error) {
    if (deps.outage?.unavailable(error)) {
      deps.outage.buffer.add(run, describeError(error));
      return [...connectionIds];
    }
    deps.logger.error(
      { connectionIds, probe: probe.name, err: describeError(error) },
      "storing a probe run failed",
    );
    return [];
  }
}

/**
 * Writes one run (live or from the outage buffer); throws when the datastore fails. Only the
 * connections whose lease this collector still holds get it (see `storeServerRun`): a run kept
 * through an outage is dropped for a connection another collector took meanwhile.
 */
export async function writeCollectedRun(deps: RunStoreDeps, run: CollectedRun): Promise<number[]> {
  const { probe, connectionIds, collectedAt, rows } = run;
  await deps.partitions.ensureFor(probe, collectedAt);
  if (run.serverWide) {
    const { storedUnder } = await storeServerWideRun(
      deps.sql,
      deps.logger,
      probe,
      connectionIds,
      collectedAt,
      rows,
      deps.leaseHolder,
    );
    return storedUnder === null ? [] : [storedUnder];
  }
  const stored = await storeServerRun(
    deps.sql,
    deps.logger,
    probe,
    connectionIds,
    collectedAt,
    rows,
    deps.leaseHolder,
    deps.changedRows,
  );
  if (stored.leaseLost.length > 0) {
    deps.logger.debug(
      { connectionIds: stored.leaseLost, probe: probe.name },
      "lease lost: the run is not stored",
    );
  }
  const lost = new Set(stored.leaseLost);
  return connectionIds.filter((id) => !lost.has(id));
}
