import { ACTIVITY_MINUTE_KEY, advisoryLocks, type Sql } from "@dbmon/datastore";
import type { ActivitySample } from "./activity-sampling.js";
import type { CollectorLogger } from "./logger.js";
import { describeError } from "./sessions.js";
import { METRICS_SCHEMA, weekStart } from "./storage.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 3600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;
/** 17 parameters a row: 3,000 rows stay under the protocol's 65,535 parameters. */
const RAW_CHUNK_ROWS = 3000;
const AGGREGATE_CHUNK_ROWS = 5000;

export const ACTIVITY_SAMPLES_TABLE = "activity_samples";
export const ACTIVITY_MINUTES_TABLE = "activity_minutes";
export const ACTIVITY_TICKS_TABLE = "activity_ticks";
export const ACTIVITY_HOURS_TABLE = "activity_hours";
export const ACTIVITY_HOUR_TICKS_TABLE = "activity_hour_ticks";

const RAW_COLUMNS = [
  "connection_id",
  "sampled_at",
  "pid",
  ...ACTIVITY_MINUTE_KEY,
  "query",
  "xact_start",
  "query_start",
  "state_change",
  "blocking_pids",
] as const;

/** What a per-minute aggregate groups by (the key of `activity_minutes` after connection and minute). */
const DIMENSIONS = ACTIVITY_MINUTE_KEY;

/**
 * The dimensions `activity_hours` sums the minutes by, one at a time: '' for none (the load by wait
 * event type, or of the whole connection), else the column whose value it keeps.
 */
const HOUR_DIMENSIONS = [
  "",
  "database_name",
  "user_name",
  "application_name",
  "client_addr",
  "wait_event",
  "query_id",
] as const;

type RawRecord = Record<(typeof RAW_COLUMNS)[number], string | number | null>;

interface MinuteCount {
  connection_id: number;
  minute: number;
  dimensions: string[];
  samples: number;
}

interface TickCount {
  connection_id: number;
  minute: number;
  ticks: number;
}

function table(name: string): string {
  return `"${METRICS_SCHEMA}"."${name}"`;
}

/** Hourly partitions of the raw samples: `activity_samples_YYYYMMDDHH` (UTC). */
export function samplesPartitionName(hourStart: Date): string {
  return `${ACTIVITY_SAMPLES_TABLE}_${hourStart.toISOString().slice(0, 13).replace(/[-T]/g, "")}`;
}

/** The hour a raw samples partition starts, or null for a table not named so. */
export function samplesPartitionHour(partition: string): Date | null {
  const match = /^activity_samples_(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(partition);
  return match
    ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4])))
    : null;
}

function hourStart(at: number): number {
  return at - (at % HOUR_MS);
}

/** Postgres array literal of pids (the datastore casts it to integer[]). */
function pidsLiteral(pids: readonly number[]): string {
  return `{${pids.join(",")}}`;
}

/**
 * Per-minute rows summed per hour (UTC) and key: one row per key and hour, carrying the first
 * minute row's columns, the hour (ISO) and the total.
 */
function sumByHour<Row>(
  rows: readonly Row[],
  minuteOf: (row: Row) => string,
  countOf: (row: Row) => number,
  keyOf: (row: Row) => string,
): { row: Row; hour: string; total: number }[] {
  const sums = new Map<string, { row: Row; hour: string; total: number }>();
  for (const row of rows) {
    const hour = new Date(hourStart(Date.parse(minuteOf(row)))).toISOString();
    const key = `${hour}|${keyOf(row)}`;
    const sum = sums.get(key) ?? { row, hour, total: 0 };
    sum.total += countOf(row);
    sums.set(key, sum);
  }
  return [...sums.values()];
}

export interface ActivityStoreOptions {
  sql: Sql;
  logger: CollectorLogger;
  /** This collector's name in `collector_leases`: only connections it holds are stored. */
  leaseHolder: string;
  now(): Date;
}

/**
 * Where sampling ticks of every server this collector samples go: raw samples are buffered and
 * written once per flush (one transaction a second for the whole collector, not one per server);
 * per-minute counts and tick counts are kept in memory and upserted (adding to what is stored) once
 * their minute has closed, and on stop for the open one, so a crash loses at most the open minute.
 * The same transaction adds them to their hour's rows (`activity_hours`, per dimension, and
 * `activity_hour_ticks`), so the hourly sums always equal the minutes'.
 * Partitions (hourly for samples, weekly for the aggregates) are created ahead of need.
 */
export class ActivityStore {
  private raw: RawRecord[] = [];
  private minutes = new Map<string, MinuteCount>();
  private ticks = new Map<string, TickCount>();
  private readonly knownPartitions = new Set<string>();
  private flushing: Promise<void> | undefined;

  constructor(private readonly options: ActivityStoreOptions) {}

  /** One successful tick of a server: its samples by the connection they are stored under. */
  record(
    sampledAt: Date,
    samples: ReadonlyMap<number, readonly ActivitySample[]>,
    ticked: readonly number[],
  ) {
    const at = sampledAt.getTime();
    const minute = at - (at % MINUTE_MS);
    const iso = sampledAt.toISOString();
    for (const id of ticked) {
      const key = `${id}|${minute}`;
      const count = this.ticks.get(key) ?? { connection_id: id, minute, ticks: 0 };
      count.ticks += 1;
      this.ticks.set(key, count);
    }
    for (const [id, list] of samples) {
      for (const sample of list) {
        this.raw.push({
          connection_id: id,
          sampled_at: iso,
          pid: sample.pid,
          database_name: sample.database_name,
          user_name: sample.user_name,
          application_name: sample.application_name,
          client_addr: sample.client_addr,
          backend_type: sample.backend_type,
          state: sample.state,
          wait_event_type: sample.wait_event_type,
          wait_event: sample.wait_event,
          query_id: sample.query_id,
          query: sample.query,
          xact_start: sample.xact_start?.toISOString() ?? null,
          query_start: sample.query_start?.toISOString() ?? null,
          state_change: sample.state_change?.toISOString() ?? null,
          blocking_pids: pidsLiteral(sample.blocking_pids),
        });
        const dimensions = DIMENSIONS.map((name) => sample[name] ?? (name === "query_id" ? "0" : ""));
        const key = JSON.stringify([id, minute, dimensions]);
        const count = this.minutes.get(key) ?? { connection_id: id, minute, dimensions, samples: 0 };
        count.samples += 1;
        this.minutes.set(key, count);
      }
    }
  }

  /** Creates the partitions around `at` (this and next hour, this and next week). */
  async ensurePartitions(at: Date): Promise<void> {
    const hour = hourStart(at.getTime());
    const week = weekStart(at).getTime();
    const wanted = [
      ...[hour, hour + HOUR_MS].map((start) => ({
        parent: ACTIVITY_SAMPLES_TABLE,
        name: samplesPartitionName(new Date(start)),
        start,
        end: start + HOUR_MS,
      })),
      ...[
        ACTIVITY_MINUTES_TABLE,
        ACTIVITY_TICKS_TABLE,
        ACTIVITY_HOURS_TABLE,
        ACTIVITY_HOUR_TICKS_TABLE,
      ].flatMap((parent) =>
        [week, week + WEEK_MS].map((start) => ({
          parent,
          name: `${parent}_${new Date(start).toISOString().slice(0, 10).replaceAll("-", "")}`,
          start,
          end: start + WEEK_MS,
        })),
      ),
    ].filter((partition) => !this.knownPartitions.has(partition.name));
    if (wanted.length === 0) {
      return;
    }
    await this.options.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${advisoryLocks.metricsDdl})`;
      for (const partition of wanted) {
        try {
          await tx.savepoint((sp) =>
            sp.unsafe(`create table if not exists ${table(partition.name)} partition of ${table(partition.parent)}
                for values from ('${new Date(partition.start).toISOString()}') to ('${new Date(partition.end).toISOString()}')`),
          );
        } catch (error) {
          // Rows of that range already in the default partition (written where no collector ran):
          // they stay there, and so do the range's next rows; retention empties it all the same.
          this.options.logger.warn(
            { partition: partition.name, err: describeError(error) },
            "activity partition not created; its rows go to the default partition",
          );
        }
      }
    });
    for (const partition of wanted) {
      this.knownPartitions.add(partition.name);
    }
  }

  /**
   * Writes the buffered samples, and the counts of closed minutes (every minute with `all`, on stop).
   * One flush at a time: while one runs, a periodic flush is skipped (the next takes what is
   * buffered then) and a final one waits for it. A failed flush keeps the counts for the next one
   * (raw samples, kept for drill-down only, are dropped).
   */
  flush(all = false): Promise<void> {
    if (this.flushing && !all) {
      return this.flushing;
    }
    const previous = this.flushing ?? Promise.resolve();
    const tracked: Promise<void> = previous
      .then(() => this.write(all))
      .finally(() => {
        if (this.flushing === tracked) {
          this.flushing = undefined;
        }
      });
    this.flushing = tracked;
    return tracked;
  }

  private async write(all: boolean): Promise<void> {
    const now = this.options.now();
    const openMinute = all ? Number.POSITIVE_INFINITY : now.getTime() - (now.getTime() % MINUTE_MS);
    const raw = this.raw;
    this.raw = [];
    const minutes = [...this.minutes].filter(([, count]) => count.minute < openMinute);
    const ticks = [...this.ticks].filter(([, count]) => count.minute < openMinute);
    if (raw.length === 0 && minutes.length === 0 && ticks.length === 0) {
      return;
    }
    for (const [key] of minutes) {
      this.minutes.delete(key);
    }
    for (const [key] of ticks) {
      this.ticks.delete(key);
    }
    try {
      await this.ensurePartitions(now);
      await this.writeRows(
        raw,
        minutes.map(([, count]) => count),
        ticks.map(([, count]) => count),
      );
    } catch (error) {
      this.options.logger.error({ err: describeError(error) }, "storing activity samples failed");
      for (const [key, count] of minutes) {
        const kept = this.minutes.get(key);
        this.minutes.set(key, kept ? { ...kept, samples: kept.samples + count.samples } : count);
      }
      for (const [key, count] of ticks) {
        const kept = this.ticks.get(key);
        this.ticks.set(key, kept ? { ...kept, ticks: kept.ticks + count.ticks } : count);
      }
    }
  }

  private async writeRows(raw: RawRecord[], minutes: MinuteCount[], ticks: TickCount[]): Promise<void> {
    const ids = [...new Set([...raw, ...minutes, ...ticks].map((row) => Number(row.connection_id)))].sort(
      (a, b) => a - b,
    );
    await this.options.sql.begin(async (tx) => {
      // As storeServerRun: the connections first (the inserts' foreign keys lock them so), then the
      // leases; only connections this collector still holds are stored.
      await tx`select 1 from connections where id = any(${ids}::int[]) order by id for key share`;
      const leased = await tx<{ connection_id: number }[]>`
        select connection_id from collector_leases
        where connection_id = any(${ids}::int[]) and holder = ${this.options.leaseHolder}
        order by connection_id
        for share`;
      const held = new Set(leased.map((row) => row.connection_id));
      const rawHeld = raw.filter((row) => held.has(Number(row.connection_id)));
      for (let offset = 0; offset < rawHeld.length; offset += RAW_CHUNK_ROWS) {
        const chunk = rawHeld.slice(offset, offset + RAW_CHUNK_ROWS);
        await tx`insert into ${tx.unsafe(table(ACTIVITY_SAMPLES_TABLE))} ${tx(chunk, ...RAW_COLUMNS)}`;
      }
      const minuteRows = minutes
        .filter((count) => held.has(count.connection_id))
        .map(
          (count): Record<string, string | number> => ({
            connection_id: count.connection_id,
            minute: new Date(count.minute).toISOString(),
            ...Object.fromEntries(DIMENSIONS.map((name, index) => [name, count.dimensions[index] ?? ""])),
            samples: count.samples,
          }),
        );
      for (let offset = 0; offset < minuteRows.length; offset += AGGREGATE_CHUNK_ROWS) {
        const chunk = minuteRows.slice(offset, offset + AGGREGATE_CHUNK_ROWS);
        await tx`
          insert into ${tx.unsafe(table(ACTIVITY_MINUTES_TABLE))}
            ${tx(chunk, ["connection_id", "minute", ...DIMENSIONS, "samples"])}
          on conflict (connection_id, minute, ${tx.unsafe(DIMENSIONS.join(", "))})
          do update set samples = activity_minutes.samples + excluded.samples`;
      }
      const tickRows = ticks
        .filter((count) => held.has(count.connection_id))
        .map((count) => ({
          connection_id: count.connection_id,
          minute: new Date(count.minute).toISOString(),
          ticks: count.ticks,
        }));
      for (let offset = 0; offset < tickRows.length; offset += AGGREGATE_CHUNK_ROWS) {
        const chunk = tickRows.slice(offset, offset + AGGREGATE_CHUNK_ROWS);
        await tx`
          insert into ${tx.unsafe(table(ACTIVITY_TICKS_TABLE))} ${tx(chunk, "connection_id", "minute", "ticks")}
          on conflict (connection_id, minute) do update set ticks = activity_ticks.ticks + excluded.ticks`;
      }
      // Each minute row counts once per dimension of activity_hours, under its value there.
      const perDimension = minuteRows.flatMap((row) =>
        HOUR_DIMENSIONS.map((dimension) => ({
          connection_id: Number(row.connection_id),
          minute: String(row.minute),
          dimension,
          value: dimension === "" ? "" : String(row[dimension] ?? ""),
          wait_event_type: String(row.wait_event_type ?? ""),
          samples: Number(row.samples),
        })),
      );
      const hourRows = sumByHour(
        perDimension,
        (row) => row.minute,
        (row) => row.samples,
        (row) => JSON.stringify([row.connection_id, row.dimension, row.value, row.wait_event_type]),
      ).map(({ row, hour, total }) => ({
        connection_id: row.connection_id,
        hour,
        dimension: row.dimension,
        value: row.value,
        wait_event_type: row.wait_event_type,
        samples: total,
      }));
      for (let offset = 0; offset < hourRows.length; offset += AGGREGATE_CHUNK_ROWS) {
        const chunk = hourRows.slice(offset, offset + AGGREGATE_CHUNK_ROWS);
        await tx`
          insert into ${tx.unsafe(table(ACTIVITY_HOURS_TABLE))}
            ${tx(chunk, "connection_id", "hour", "dimension", "value", "wait_event_type", "samples")}
          on conflict (connection_id, hour, dimension, value, wait_event_type)
          do update set samples = activity_hours.samples + excluded.samples`;
      }
      const hourTickRows = sumByHour(
        tickRows,
        (row) => row.minute,
        (row) => row.ticks,
        (row) => String(row.connection_id),
      ).map(({ row, hour, total }) => ({ connection_id: row.connection_id, hour, ticks: total }));
      for (let offset = 0; offset < hourTickRows.length; offset += AGGREGATE_CHUNK_ROWS) {
        const chunk = hourTickRows.slice(offset, offset + AGGREGATE_CHUNK_ROWS);
        await tx`
          insert into ${tx.unsafe(table(ACTIVITY_HOUR_TICKS_TABLE))} ${tx(chunk, "connection_id", "hour", "ticks")}
          on conflict (connection_id, hour) do update set ticks = activity_hour_ticks.ticks + excluded.ticks`;
      }
    });
  }
}
