import { advisoryLocks, type Sql } from "@dbmon/datastore";
import type { AnomalySettings } from "./anomaly.js";
import type { AlerterLogger } from "./logger.js";
import { existingMetricTables, type MetricDefinition, metricDefinitions } from "./metrics.js";

/** The interquartile range of normally distributed values is 1.349 standard deviations. */
const IQR_PER_STDDEV = 1.349;

/**
 * Statistics of one metric over ($2, $1], stored per series for the whole window and for each hour of
 * the day and day of the week ($3/$4: the time zone of each connection, $5: the metric, $6: the
 * sensitivity, $7: the samples a period needs to be kept).
 *
 * Outliers (an incident in the window) must not widen the band they are judged by: a sample further
 * from its period's median than sensitivity × IQR / 1.349 (the standard deviation the quartiles imply)
 * is left out of mean and stddev. Quartiles stay put until a quarter of the samples are abnormal,
 * where a mean and stddev are dragged along by a few hours of incident. When the middle half of the
 * samples share one value the IQR is 0 and no sample is left out; the variance floor is what keeps
 * such series quiet.
 *
 * Each period's values are gathered by hashing (grouping sets: the window, its hour, its weekday) and
 * sorted per period for the quartiles, never as one sort of a week of samples three times over.
 */
export const statisticsQuery = (definition: MetricDefinition) => `
  with samples as (
    select s.connection_id, coalesce(s.database_name, '') as database_name, coalesce(s.object_name, '') as object_name,
      s.collected_at, s.value, l.zone, extract(hour from l.local)::int as hour, extract(dow from l.local)::int as weekday
    from (${definition.sql}) s
    left join unnest($3::int[], $4::text[]) as z(connection_id, zone) on z.connection_id = s.connection_id
    cross join lateral (select coalesce(z.zone, 'UTC') as zone, s.collected_at at time zone coalesce(z.zone, 'UTC') as local) l
    where s.value is not null and s.value not in ('NaN', 'Infinity', '-Infinity')
  ),
  periods as (
    select connection_id, database_name, object_name,
      case grouping(hour, weekday) when 3 then 'all' when 1 then 'hour_of_day' else 'day_of_week' end as period,
      coalesce(hour, weekday, 0) as period_value, min(zone) as zone, array_agg(value) as vals, min(value) as min,
      max(value) as max, count(*) as sample_count, min(collected_at) as first_sample_at, max(collected_at) as last_sample_at
    from samples
    group by connection_id, database_name, object_name, grouping sets ((), (hour), (weekday))
    having grouping(hour, weekday) = 3 or count(*) >= $7
  )
  insert into metric_baselines (connection_id, database_name, metric_name, object_name, period, period_value,
    time_zone, mean, stddev, min, max, sample_count, outlier_count, first_sample_at, last_sample_at, last_calculated)
  select p.connection_id, p.database_name, $5, p.object_name, p.period, p.period_value, p.zone, k.mean, k.stddev,
    p.min, p.max, p.sample_count, k.outlier_count, p.first_sample_at, p.last_sample_at, $1::timestamptz
  from periods p
  cross join lateral (select percentile_cont(array[0.25, 0.5, 0.75]) within group (order by v) as q
                      from unnest(p.vals) v) q
  cross join lateral (
    select avg(v) filter (where kept) as mean, coalesce(stddev_pop(v) filter (where kept), 0) as stddev,
      count(*) filter (where not kept) as outlier_count
    from unnest(p.vals) v,
      lateral (select q.q[3] = q.q[1] or abs(v - q.q[2]) <= $6 * (q.q[3] - q.q[1]) / ${IQR_PER_STDDEV} as kept) k) k
  on conflict (connection_id, database_name, metric_name, object_name, period, period_value) do update set
    time_zone = excluded.time_zone, mean = excluded.mean, stddev = excluded.stddev, min = excluded.min,
    max = excluded.max, sample_count = excluded.sample_count, outlier_count = excluded.outlier_count,
    first_sample_at = excluded.first_sample_at, last_sample_at = excluded.last_sample_at,
    last_calculated = excluded.last_calculated`;

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

export interface BaselineRun {
  /** Baselines stored (whole-window and period ones). */
  baselines: number;
  /** Metrics whose history could not be read (logged). */
  failed: number;
}

/**
 * Recalculates every rule metric's baselines from the collected history of the lookback window
 * ending `now`; then removes the baselines this run did not store (series without samples in the
 * window, metrics whose tables are gone or whose query failed). One statement per metric rather than
 * one transaction: a run over many connections takes minutes, too long to hold a snapshot. Answers
 * undefined when another alerter is recalculating them, or (with `unlessWithinSeconds`) when they were
 * calculated that recently.
 */
export async function calculateBaselines(
  sql: Sql,
  now: Date,
  settings: AnomalySettings,
  logger: AlerterLogger,
  unlessWithinSeconds?: number,
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
      return await recalculate(session, now, settings, logger, unlessWithinSeconds);
    } finally {
      await session`select pg_advisory_unlock(${advisoryLocks.baselineRecalculation})`;
    }
  } finally {
    session.release();
  }
}

async function recalculate(
  sql: Sql,
  now: Date,
  settings: AnomalySettings,
  logger: AlerterLogger,
  unlessWithinSeconds: number | undefined,
): Promise<BaselineRun | undefined> {
  const iso = now.toISOString();
  if (unlessWithinSeconds !== undefined) {
    const [recent] = await sql<{ recent: boolean }[]>`
      select exists (select 1 from metric_baselines
        where last_calculated > ${iso}::timestamptz - make_interval(secs => ${unlessWithinSeconds})
          and last_calculated <= ${iso}::timestamptz) as recent`;
    if (recent?.recent) {
      return undefined;
    }
  }
  const tables = await existingMetricTables(sql);
  const zones = await timeZones(sql, now, tables);
  const rules = await sql<{ metric_name: string }[]>`select distinct metric_name from alert_rules`;
  const start = new Date(now.getTime() - settings.lookbackDays * 24 * 3600 * 1000).toISOString();
  const run: BaselineRun = { baselines: 0, failed: 0 };
  for (const { metric_name: metric } of rules) {
    const definition = metricDefinitions[metric];
    if (definition?.learnsBaselines === false || !definition?.tables.every((table) => tables.has(table))) {
      continue;
    }
    const started = performance.now();
    try {
      const stored = await sql.unsafe(statisticsQuery(definition), [
        iso,
        start,
        [...zones.keys()],
        [...zones.values()],
        metric,
        settings.sensitivity,
        settings.periodSamples,
      ]);
      run.baselines += stored.count;
      logger.debug(
        { metric, baselines: stored.count, ms: Math.round(performance.now() - started) },
        "metric baselines calculated",
      );
    } catch (error) {
      run.failed += 1;
      logger.warn({ metric, err: error }, "metric history could not be read for baselines");
    }
  }
  await sql`delete from metric_baselines where last_calculated <> ${iso}::timestamptz`;
  return run;
}
