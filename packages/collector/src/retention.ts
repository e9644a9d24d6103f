import { advisoryLocks, longestRetentionDays, type Sql } from "@dbmon/datastore";
import { activitySamplingProbe } from "./activity-sampling.js";
import {
  ACTIVITY_HOUR_TICKS_TABLE,
  ACTIVITY_HOURS_TABLE,
  ACTIVITY_MINUTES_TABLE,
  ACTIVITY_SAMPLES_TABLE,
  ACTIVITY_TICKS_TABLE,
  samplesPartitionHour,
} from "./activity-store.js";
import type { CollectorLogger } from "./logger.js";
import type { ProbeSpec } from "./probes/types.js";
import { METRICS_SCHEMA, partitionedTables } from "./storage.js";

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;

/** The weekly-partitioned activity aggregates, with the column they are partitioned on. */
const ACTIVITY_AGGREGATES = [
  { parent: ACTIVITY_MINUTES_TABLE, column: "minute" },
  { parent: ACTIVITY_TICKS_TABLE, column: "minute" },
  { parent: ACTIVITY_HOURS_TABLE, column: "hour" },
  { parent: ACTIVITY_HOUR_TICKS_TABLE, column: "hour" },
] as const;

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Monday of a weekly partition `<probe>_YYYYMMDD`, or null for a table not named so. */
export function partitionWeek(probe: string, partition: string): Date | null {
  const match = partition.startsWith(`${probe}_`)
    ? /^(\d{4})(\d{2})(\d{2})$/.exec(partition.slice(probe.length + 1))
    : null;
  return match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
}

/**
 * Drops whole weekly partitions whose every row is older than the probe's retention: the longest
 * retention any scope of the probe configuration gives it, else the registry's. For configuration
 * probes (snapshots), a partition holding some connection's newest snapshot is kept however old,
 * since that snapshot still describes the server. Returns the dropped partitions.
 */
export async function dropExpiredPartitions(
  sql: Sql,
  probes: readonly ProbeSpec[],
  now: Date,
  logger: CollectorLogger,
): Promise<string[]> {
  const retention = await longestRetentionDays(sql);
  const dropped: string[] = [];
  for (const probe of probes) {
    const days = retention.get(probe.name) ?? probe.retentionDays;
    const cutoff = now.getTime() - days * DAY_MS;
    // A changed-rows probe's weeks stand alone (each starts with keyframes): its rows and runs
    // tables lose the same weeks.
    const expired: { name: string; week: Date | null }[] = [];
    for (const table of partitionedTables(probe)) {
      expired.push(
        ...(await partitionsOf(sql, table))
          .map((name) => ({ name, week: partitionWeek(table, name) }))
          .filter((partition) => partition.week !== null && partition.week.getTime() + WEEK_MS <= cutoff),
      );
    }
    if (expired.length === 0) {
      continue;
    }
    const kept = probe.snapshot
      ? (
          await sql<{ at_ms: number }[]>`
            select (extract(epoch from snapshot_collected_at) * 1000)::float8 as at_ms from probe_runs
            where probe_name = ${probe.name} and snapshot_collected_at is not null`
        ).map((row) => row.at_ms)
      : [];
    const doomed = expired.filter(
      ({ week }) =>
        !kept.some((at) => at >= (week as Date).getTime() && at < (week as Date).getTime() + WEEK_MS),
    );
    if (doomed.length === 0) {
      continue;
    }
    await dropPartitions(
      sql,
      doomed.map(({ name }) => name),
    );
    dropped.push(...doomed.map(({ name }) => name));
    logger.info(
      { probe: probe.name, partitions: doomed.map(({ name }) => name) },
      "dropped expired metrics partitions",
    );
  }
  return dropped;
}

async function partitionsOf(sql: Sql, parent: string): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    select c.relname::text as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass(${`${ident(METRICS_SCHEMA)}.${ident(parent)}`})`;
  return rows.map((row) => row.name);
}

async function dropPartitions(sql: Sql, names: readonly string[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${advisoryLocks.metricsDdl})`;
    for (const name of names) {
      await tx.unsafe(`drop table if exists ${ident(METRICS_SCHEMA)}.${ident(name)}`);
    }
  });
}

/**
 * Active session history's retention. Raw samples: hourly partitions whose every row is older than
 * `rawRetentionMs` are dropped. Per-minute and hourly aggregates and tick counts (kept alike, so an
 * hourly answer never counts minutes already gone): weekly partitions older than
 * the longest retention the probe configuration gives `activity_sampling`. Nothing is deleted row by
 * row but what the default partitions hold (rows written where no partition was: normally none),
 * through a range condition. Returns the dropped partitions.
 */
export async function dropExpiredActivity(
  sql: Sql,
  now: Date,
  rawRetentionMs: number,
  logger: CollectorLogger,
): Promise<string[]> {
  const rawCutoff = now.getTime() - rawRetentionMs;
  const days =
    (await longestRetentionDays(sql)).get(activitySamplingProbe.name) ?? activitySamplingProbe.retentionDays;
  const aggregateCutoff = now.getTime() - days * DAY_MS;
  const doomed = (await partitionsOf(sql, ACTIVITY_SAMPLES_TABLE)).filter((name) => {
    const hour = samplesPartitionHour(name);
    return hour !== null && hour.getTime() + HOUR_MS <= rawCutoff;
  });
  for (const { parent } of ACTIVITY_AGGREGATES) {
    doomed.push(
      ...(await partitionsOf(sql, parent)).filter((name) => {
        const week = partitionWeek(parent, name);
        return week !== null && week.getTime() + WEEK_MS <= aggregateCutoff;
      }),
    );
  }
  if (doomed.length > 0) {
    await dropPartitions(sql, doomed);
    logger.info({ partitions: doomed }, "dropped expired activity partitions");
  }
  const samples = `${ident(METRICS_SCHEMA)}.${ident(`${ACTIVITY_SAMPLES_TABLE}_default`)}`;
  await sql.unsafe(`delete from ${samples} where sampled_at < $1`, [new Date(rawCutoff).toISOString()]);
  for (const { parent, column } of ACTIVITY_AGGREGATES) {
    // An hour is deleted once it has wholly passed the cutoff, as its minutes are.
    const fallback = `${ident(METRICS_SCHEMA)}.${ident(`${parent}_default`)}`;
    const cutoff = column === "hour" ? aggregateCutoff - HOUR_MS : aggregateCutoff;
    await sql.unsafe(`delete from ${fallback} where ${column} < $1`, [new Date(cutoff).toISOString()]);
  }
  return doomed;
}
