import { advisoryLocks, type Sql } from "@dbmon/datastore";
import type { AnomalySettings } from "./anomaly.js";
import { type HourPartial, type MergedBaseline, type MergeSettings, mergeSeries } from "./baseline-merge.js";
import type { AlerterLogger } from "./logger.js";
import { existingMetricTables, type MetricDefinition, metricDefinitions } from "./metrics.js";

const HOUR_MS = 3600 * 1000;

/**
 * A collection is stored at most this long after its time (a run's time limit, 60 s by default, and
 * its insert): an update that ran sooner than this after its last hour ended recomputes that hour the
 * next time, so that runs stored late still count.
 */
const SETTLING_MS = 5 * 60 * 1000;

/**
 * History read before the first hour recomputed by metrics that read the previous collection
 * (`readsPreviousCollection`): counter increases, whose previous collection (at most 30 minutes
 * earlier, see `increases` in metrics.ts) may lie in the hour before.
 */
const PRECEDING_HISTORY_MS = HOUR_MS;

/**
 * Hourly partial aggregates of one metric from its samples collected in [$5, $1) ($2: where its
 * query starts reading, for counters' previous collection; $3/$4: each connection's time zone; $6:
 * the metric). Partials of those hours that no longer have samples are removed in the same statement.
 * Answers the local hours of the day and days of the week whose partials changed.
 */
export const partialsQuery = (definition: MetricDefinition) => `
  with samples as (
    select s.connection_id, coalesce(s.database_name, '') as database_name, coalesce(s.object_name, '') as object_name,
      s.collected_at, s.value, l.zone, l.local
    from (${definition.sql}) s
    left join unnest($3::int[], $4::text[]) as z(connection_id, zone) on z.connection_id = s.connection_id
    cross join lateral (select coalesce(z.zone, 'UTC') as zone, s.collected_at at time zone coalesce(z.zone, 'UTC') as local) l
    where s.collected_at >= $5::timestamptz and s.collected_at < $1::timestamptz and s.value is not null and s.value not in ('NaN', 'Infinity', '-Infinity')
  ),
  fresh as (
    select $6::text as metric_name, connection_id, database_name, object_name,
      date_trunc('hour', collected_at) as hour_start, extract(hour from local)::smallint as hour_of_day,
      extract(dow from local)::smallint as day_of_week, min(zone) as time_zone, count(*)::int as sample_count,
      avg(value) as mean, var_pop(value) * count(*) as m2, min(value) as min, max(value) as max,
      min(collected_at) as first_sample_at, max(collected_at) as last_sample_at
    from samples
    group by connection_id, database_name, object_name, 5, 6, 7
  ),
  stale as (
    delete from metric_baseline_hours h
    where h.metric_name = $6 and h.hour_start >= date_trunc('hour', $5::timestamptz)
      and not exists (select 1 from fresh f where (f.connection_id, f.database_name, f.object_name, f.hour_start,
        f.hour_of_day, f.day_of_week) = (h.connection_id, h.database_name, h.object_name, h.hour_start, h.hour_of_day,
        h.day_of_week))
    returning h.hour_of_day, h.day_of_week
  ),
  written as (
  insert into metric_baseline_hours as h (metric_name, connection_id, database_name, object_name, hour_start,
    hour_of_day, day_of_week, time_zone, sample_count, mean, m2, min, max, first_sample_at, last_sample_at)
  select * from fresh
  on conflict (metric_name, connection_id, database_name, object_name, hour_start, hour_of_day, day_of_week)
  do update set time_zone = excluded.time_zone, sample_count = excluded.sample_count, mean = excluded.mean,
    m2 = excluded.m2, min = excluded.min, max = excluded.max, first_sample_at = excluded.first_sample_at,
    last_sample_at = excluded.last_sample_at
  returning h.hour_of_day, h.day_of_week
  )
  select coalesce(array_agg(distinct hour_of_day), '{}') as hours, coalesce(array_agg(distinct day_of_week), '{}') as days
  from (select * from stale union all select * from written) changed`;

/** Removes one metric's partials older than the window ($2); answers the periods they were in. */
const pruneQuery = `
  with gone as (delete from metric_baseline_hours where metric_name = $1 and hour_start < $2::timestamptz
    returning hour_of_day, day_of_week)
  select coalesce(array_agg(distinct hour_of_day), '{}') as hours, coalesce(array_agg(distinct day_of_week), '{}') as days
  from gone`;

/**
 * One metric's partials of the window [$2, $3) for some connections ($4), series after series: the
 * PK's order, so an index scan hands them over without a sort. Times in epoch microseconds (exact in a double up to the year 2255).
 */
const windowPartialsQuery = `
  select connection_id, database_name, object_name, hour_of_day, day_of_week, time_zone, sample_count, mean, m2,
    min, max, (extract(epoch from first_sample_at) * 1000000)::float8, (extract(epoch from last_sample_at) * 1000000)::float8
  from metric_baseline_hours
  where metric_name = $1 and hour_start >= $2::timestamptz and hour_start < $3::timestamptz
    and connection_id = any($4::int[])
  order by connection_id, database_name, object_name, hour_start, hour_of_day, day_of_week`;

/** A row of `windowPartialsQuery`, as the driver's `values()` hands it over. */
type PartialRow = [
  connectionId: number,
  databaseName: string,
  objectName: string,
  hourOfDay: number,
  dayOfWeek: number,
  timeZone: string,
  sampleCount: number,
  mean: number,
  m2: number,
  min: number,
  max: number,
  firstSampleMicros: number,
  lastSampleMicros: number,
];

/** Upserts merged baselines of one metric ($1: now, $2: the metric, then one array per column). */
const storeBaselinesQuery = `
  insert into metric_baselines (connection_id, database_name, metric_name, object_name, period, period_value,
    time_zone, mean, stddev, min, max, sample_count, outlier_count, first_sample_at, last_sample_at, last_calculated)
  select c, d, $2, o, p, v, z, mean, stddev, mn, mx, n, outliers,
    timestamptz 'epoch' + f * interval '1 microsecond', timestamptz 'epoch' + l * interval '1 microsecond', $1::timestamptz
  from unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::float8[], $10::float8[],
    $11::float8[], $12::float8[], $13::int[], $14::int[], $15::float8[], $16::float8[])
    as b(c, d, o, p, v, z, mean, stddev, mn, mx, n, outliers, f, l)
  on conflict (connection_id, database_name, metric_name, object_name, period, period_value) do update set
    time_zone = excluded.time_zone, mean = excluded.mean, stddev = excluded.stddev, min = excluded.min,
    max = excluded.max, sample_count = excluded.sample_count, outlier_count = excluded.outlier_count,
    first_sample_at = excluded.first_sample_at, last_sample_at = excluded.last_sample_at,
    last_calculated = excluded.last_calculated`;

/** Removes one metric's baselines of the merged periods ($3, $4) that were not stored again at $2. */
const removeUnmergedQuery = `
  delete from metric_baselines b
  where b.metric_name = $1 and b.last_calculated <> $2::timestamptz
    and (b.period = 'all' or (b.period = 'hour_of_day' and b.period_value = any($3::int[]))
      or (b.period = 'day_of_week' and b.period_value = any($4::int[])))`;

/** Baselines written per statement: bounded parameters and memory whatever the fleet. */
const STORE_BATCH = 10_000;
/**
 * Connections whose partials are read per round trip: a week of a statement metric is ~25,000
 * partials per connection, so memory stays bounded whatever the fleet.
 */
const CONNECTIONS_PER_READ = 10;

/** Column arrays of a batch of merged baselines, in the order of `storeBaselinesQuery`. */
class BaselineBatch {
  readonly columns: unknown[][] = Array.from({ length: 14 }, () => []);

  get size(): number {
    return (this.columns[0] as unknown[]).length;
  }

  addSeries(row: PartialRow, baselines: readonly MergedBaseline[]): void {
    for (const baseline of baselines) {
      this.add(row, baseline);
    }
  }

  private add(row: PartialRow, baseline: MergedBaseline): void {
    const values = [
      row[0],
      row[1],
      row[2],
      baseline.period,
      baseline.periodValue,
      baseline.timeZone,
      baseline.mean,
      baseline.stddev,
      baseline.min,
      baseline.max,
      baseline.sampleCount,
      baseline.outlierCount,
      baseline.firstUs,
      baseline.lastUs,
    ];
    values.forEach((value, index) => {
      (this.columns[index] as unknown[]).push(value);
    });
  }
}

/**
 * Merges one metric's hourly partials of the window into `metric_baselines`: per series, the whole
 * window and the hours of the day and days of the week whose partials changed (see `mergeSeries`);
 * the baselines of those periods that were not stored again are removed. The merge runs here, over
 * plain arrays, rather than as grouped percentiles in SQL: one index-ordered read of the partials and
 * batched upserts cost the datastore far less than sorting every period's hours in it.
 */
async function mergeBaselines(
  sql: Sql,
  metric: string,
  now: string,
  window: { start: string; end: string },
  settings: AnomalySettings,
  changed: Changed,
): Promise<number> {
  const merge: MergeSettings = {
    sensitivity: settings.sensitivity,
    periodSamples: settings.periodSamples,
    hours: new Set(changed.hours),
    days: new Set(changed.days),
  };
  let stored = 0;
  let batch = new BaselineBatch();
  const flush = async () => {
    if (batch.size > 0) {
      stored += batch.size;
      const columns = batch.columns;
      batch = new BaselineBatch();
      await sql.unsafe(storeBaselinesQuery, [now, metric, ...columns] as never[]);
    }
  };
  const ids = (await sql<{ id: number }[]>`select id from connections order by id`).map((row) => row.id);
  for (let index = 0; index < ids.length; index += CONNECTIONS_PER_READ) {
    const rows = await sql
      .unsafe(windowPartialsQuery, [
        metric,
        window.start,
        window.end,
        ids.slice(index, index + CONNECTIONS_PER_READ),
      ])
      .values();
    let key: PartialRow | undefined;
    let hours: HourPartial[] = [];
    for (const row of rows as unknown as PartialRow[]) {
      if (key && (row[0] !== key[0] || row[1] !== key[1] || row[2] !== key[2])) {
        batch.addSeries(key, mergeSeries(hours, merge));
        hours = [];
      }
      key = row;
      hours.push({
        hourOfDay: row[3],
        dayOfWeek: row[4],
        timeZone: row[5],
        count: row[6],
        mean: row[7],
        m2: row[8],
        min: row[9],
        max: row[10],
        firstUs: row[11],
        lastUs: row[12],
      });
    }
    if (key) {
      batch.addSeries(key, mergeSeries(hours, merge));
    }
    if (batch.size >= STORE_BATCH) {
      await flush();
    }
  }
  await flush();
  await sql.unsafe(removeUnmergedQuery, [metric, now, changed.hours, changed.days]);
  return stored;
}

/**
 * Each connection's time zone for hours and weekdays: its server's TimeZone setting, which is what
 * its users and scheduled jobs (a nightly batch) keep time by, summer time included; a name this
 * datastore does not know, or no collected settings, means UTC.
 */
async function timeZones(sql: Sql, now: Date, tables: Set<string>): Promise<Map<number, string>> {
  if (!tables.has("pg_settings")) {
    return new Map();
  }
  const rows = await sql<{ connection_id: number; zone: string }[]>`
    select distinct on (s.connection_id) s.connection_id, n.name as zone
    from metrics.pg_settings s join pg_timezone_names n on n.name = s.setting
    where s.name = 'TimeZone' and s.collected_at <= ${now.toISOString()}::timestamptz
    order by s.connection_id, s.collected_at desc`;
  return new Map(rows.map((row) => [row.connection_id, row.zone]));
}

/** Local hours of the day and days of the week whose partials changed. */
interface Changed {
  hours: number[];
  days: number[];
}

const union = (a: number[] = [], b: number[] = []) => [...new Set([...a, ...b])];

export interface BaselineRun {
  /** Baselines stored (whole-window and period ones). */
  baselines: number;
  /** Metrics whose history could not be read (logged). */
  failed: number;
  /** Metrics whose hourly partials were recomputed over the whole window rather than the last hours. */
  full: number;
}

export interface BaselineOptions {
  /** Answer undefined when baselines were calculated this recently. */
  unlessWithinSeconds?: number;
  /** Recompute every hourly partial of the window from the collected history. */
  full?: boolean;
}

/**
 * Brings every rule metric's baselines up to the start of the current hour: recomputes the hourly
 * partials of the hours since the previous update (the whole lookback window the first time, after a
 * gap longer than the window, after a failure, or with `full`), drops partials older than the window,
 * and merges the window's partials into `metric_baselines` for the periods whose partials changed
 * (the whole window always); then removes the baselines of metrics whose tables are gone or whose
 * query failed. The window is the lookback
 * period of complete hours before the current one. One statement per step rather than one
 * transaction: a run over many connections takes long enough not to hold a snapshot. Answers
 * undefined when another alerter is updating them, or (with `unlessWithinSeconds`) when they were
 * calculated that recently.
 */
export async function calculateBaselines(
  sql: Sql,
  now: Date,
  settings: AnomalySettings,
  logger: AlerterLogger,
  options: BaselineOptions = {},
): Promise<BaselineRun | undefined> {
  // A session of its own holds the lock between statements, and releases it if the process dies.
  const session = await sql.reserve();
  try {
    const [lock] = await session<
      { locked: boolean }[]
    >`select pg_try_advisory_lock(${advisoryLocks.baselineRecalculation}) as locked`;
    if (!lock?.locked) {
      return undefined;
    }
    try {
      // Each period's hours are gathered and sorted in memory rather than spilled to disk.
      await session`set work_mem = '64MB'`;
      return await update(session, now, settings, logger, options);
    } finally {
      await session`reset work_mem`;
      await session`select pg_advisory_unlock(${advisoryLocks.baselineRecalculation})`;
    }
  } finally {
    session.release();
  }
}

interface Progress {
  /** Start of the first hour not yet in the partials. */
  throughMs: number;
  /** When that update ran. */
  atMs: number;
}

/** Where a metric's partials must be recomputed from, given where the previous update got to. */
function recomputeFrom(
  windowStart: number,
  windowEnd: number,
  progress: Progress | undefined,
  full: boolean,
): number {
  if (full || !progress || progress.throughMs < windowStart || progress.throughMs > windowEnd) {
    return windowStart;
  }
  const settled = progress.atMs - progress.throughMs >= SETTLING_MS;
  return Math.max(windowStart, settled ? progress.throughMs : progress.throughMs - HOUR_MS);
}

const EVERY_HOUR = Array.from({ length: 24 }, (_, hour) => hour);
const EVERY_DAY = Array.from({ length: 7 }, (_, day) => day);

async function update(
  sql: Sql,
  now: Date,
  settings: AnomalySettings,
  logger: AlerterLogger,
  options: BaselineOptions,
): Promise<BaselineRun | undefined> {
  const iso = now.toISOString();
  if (options.unlessWithinSeconds !== undefined) {
    const [recent] = await sql<{ recent: boolean }[]>`
      select exists (select 1 from metric_baselines
        where last_calculated > ${iso}::timestamptz - make_interval(secs => ${options.unlessWithinSeconds})
          and last_calculated <= ${iso}::timestamptz) as recent`;
    if (recent?.recent) {
      return undefined;
    }
  }
  const tables = await existingMetricTables(sql);
  const zones = await timeZones(sql, now, tables);
  const rules = await sql<{ metric_name: string }[]>`select distinct metric_name from alert_rules`;
  const progress = new Map(
    (
      await sql<{ metric_name: string; through_ms: number; at_ms: number }[]>`
        select metric_name, (extract(epoch from calculated_through) * 1000)::float8 as through_ms,
          (extract(epoch from calculated_at) * 1000)::float8 as at_ms
        from metric_baseline_progress`
    ).map((row) => [row.metric_name, { throughMs: row.through_ms, atMs: row.at_ms }]),
  );
  // Complete hours only: a value is never scored against a baseline that already holds it.
  const windowEnd = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const windowEndIso = new Date(windowEnd).toISOString();
  const windowStart = windowEnd - settings.lookbackDays * 24 * HOUR_MS;
  const windowStartIso = new Date(windowStart).toISOString();
  const run: BaselineRun = { baselines: 0, failed: 0, full: 0 };
  const calculated: string[] = [];
  for (const { metric_name: metric } of rules) {
    const definition = metricDefinitions[metric];
    if (definition?.learnsBaselines === false || !definition?.tables.every((table) => tables.has(table))) {
      continue;
    }
    const started = performance.now();
    const from = recomputeFrom(windowStart, windowEnd, progress.get(metric), options.full ?? false);
    const full = from === windowStart;
    try {
      const [pruned] = await sql.unsafe<Changed[]>(pruneQuery, [metric, windowStartIso]);
      const [recomputed] = await sql.unsafe<Changed[]>(partialsQuery(definition), [
        windowEndIso,
        // A metric query's range ($2, $1] is open at its start: a millisecond earlier keeps a sample
        // collected exactly on the hour.
        new Date(from - (definition.readsPreviousCollection ? PRECEDING_HISTORY_MS : 1)).toISOString(),
        [...zones.keys()],
        [...zones.values()],
        new Date(from).toISOString(),
        metric,
      ]);
      const merging = performance.now();
      const stored = await mergeBaselines(
        sql,
        metric,
        iso,
        { start: windowStartIso, end: windowEndIso },
        settings,
        {
          hours: full ? EVERY_HOUR : union(pruned?.hours, recomputed?.hours),
          days: full ? EVERY_DAY : union(pruned?.days, recomputed?.days),
        },
      );
      await sql`
        insert into metric_baseline_progress (metric_name, calculated_through, calculated_at)
        values (${metric}, ${windowEndIso}, ${iso})
        on conflict (metric_name) do update
        set calculated_through = excluded.calculated_through, calculated_at = excluded.calculated_at`;
      calculated.push(metric);
      run.baselines += stored;
      run.full += full ? 1 : 0;
      logger.debug(
        {
          metric,
          baselines: stored,
          full,
          partialsMs: Math.round(merging - started),
          mergeMs: Math.round(performance.now() - merging),
        },
        "metric baselines calculated",
      );
    } catch (error) {
      run.failed += 1;
      // Which periods the failed step changed is unknown: the next update starts over.
      await sql`delete from metric_baseline_progress where metric_name = ${metric}`.catch(() => {});
      logger.warn({ metric, err: error }, "metric history could not be read for baselines");
    }
  }
  await sql`delete from metric_baselines where metric_name <> all(${calculated}::text[])`;
  return run;
}
