import type { Sql } from "@dbmon/datastore";
import type { EvaluationContext } from "./context.js";
import { clearAlerts, writePass } from "./evaluate.js";
import type { AlerterLogger } from "./logger.js";
import { isServerWide, type MetricValue } from "./metrics.js";
import { enqueue, type Queryable, type Scope } from "./notify/queue.js";
import { blackedOutValue } from "./server-values.js";

export interface AnomalySettings {
  /** |z| above this is an anomaly (default 3); history further out than this is left out of baselines. */
  sensitivity: number;
  /** Samples a series' history needs before its baselines are used (default 30). */
  warmupSamples: number;
  /** Time a series' history must span (up to now) before its baselines are used (default 1 hour). */
  warmupSeconds: number;
  /** The smallest standard deviation used, as a fraction of |mean| (default 0.05): flat series stay quiet. */
  varianceFloor: number;
  /** Days of collected history the baselines are calculated from (default 7). */
  lookbackDays: number;
  /** Samples an hour of the day or day of the week needs for a baseline of its own (default 3). */
  periodSamples: number;
}

export const defaultAnomalySettings: AnomalySettings = {
  sensitivity: 3,
  warmupSamples: 30,
  warmupSeconds: 3600,
  varianceFloor: 0.05,
  lookbackDays: 7,
  periodSamples: 3,
};

interface Baseline {
  connection_id: number;
  database_name: string;
  metric_name: string;
  object_name: string;
  period: "all" | "hour_of_day" | "day_of_week";
  period_value: number;
  time_zone: string;
  mean: number;
  stddev: number;
  sample_count: number;
  first_sample_at: string;
  /** Its samples fell on two days at least (in its time zone). */
  recurring: boolean;
}

const baselineKey = (connectionId: number, database: string, metric: string, object: string) =>
  `${connectionId}|${database}|${metric}|${object}`;

/** The series a value belongs to: the metric, plus the object for per-object metrics. */
const seriesName = (metric: string, value: MetricValue) =>
  value.object_name ? `${metric}#${value.object_name}` : metric;

/** The standard deviation a z-score divides by: never below the variance floor. */
const spreadOf = (baseline: Baseline, settings: AnomalySettings) =>
  Math.max(baseline.stddev, Math.abs(baseline.mean) * settings.varianceFloor);

/**
 * The stored baselines that apply now, by series: the whole window's and, in each connection's time
 * zone, the current hour of the day's and day of the week's. An hour's samples from one day are one
 * occurrence (an incident, say); on two days they make a pattern.
 */
async function currentBaselines(sql: Sql, now: Date): Promise<Map<string, Baseline[]>> {
  const rows = await sql<Baseline[]>`
    select connection_id, database_name, metric_name, object_name, period, period_value, time_zone, mean, stddev,
      sample_count, first_sample_at,
      (first_sample_at at time zone time_zone)::date <> (last_sample_at at time zone time_zone)::date as recurring
    from metric_baselines
    where period = 'all'
      or (period = 'hour_of_day' and period_value = extract(hour from ${now.toISOString()}::timestamptz at time zone time_zone))
      or (period = 'day_of_week' and period_value = extract(dow from ${now.toISOString()}::timestamptz at time zone time_zone))`;
  const bySeries = new Map<string, Baseline[]>();
  for (const row of rows) {
    const key = baselineKey(row.connection_id, row.database_name, row.metric_name, row.object_name);
    bySeries.set(key, [...(bySeries.get(key) ?? []), row]);
  }
  return bySeries;
}

/**
 * What a value now is compared with, once the series' history is warm: the hour-of-day or
 * day-of-week baseline, when there is one recurring and with a spread to divide by; of the
 * two, the narrower, which is the period that best describes the series at this time (a nightly batch
 * narrows the hour, a quiet weekend the day). Otherwise the whole window's.
 */
function chooseBaseline(baselines: Baseline[], now: Date, settings: AnomalySettings): Baseline | undefined {
  const overall = baselines.find((baseline) => baseline.period === "all");
  const warm =
    overall !== undefined &&
    overall.sample_count >= settings.warmupSamples &&
    now.getTime() - new Date(overall.first_sample_at).getTime() >= settings.warmupSeconds * 1000;
  if (!warm) {
    return undefined;
  }
  const periods = baselines
    .filter((baseline) => baseline.period !== "all" && baseline.recurring && spreadOf(baseline, settings) > 0)
    .sort((a, b) => spreadOf(a, settings) - spreadOf(b, settings));
  return periods[0] ?? overall;
}

const periodLabel = (baseline: Baseline) => {
  const pad = (hour: number) => String(hour).padStart(2, "0");
  switch (baseline.period) {
    case "hour_of_day":
      return ` at ${pad(baseline.period_value)}:00-${pad((baseline.period_value + 1) % 24)}:00 (${baseline.time_zone})`;
    case "day_of_week":
      return ` on ${["Sundays", "Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays"][baseline.period_value]} (${baseline.time_zone})`;
    default:
      return "";
  }
};

/**
 * Tier 1 anomaly detection: each value is scored against its series' baseline learned from the
 * collected history (calculateBaselines). Series whose history is still warming up, and values
 * within the variance floor of a flat series, produce nothing. An anomalous value opens (or
 * refreshes) one candidate per series and one anomaly alert; the alert clears when the series is back
 * within its band.
 */
export async function evaluateAnomalies(
  sql: Sql,
  context: EvaluationContext,
  values: Map<string, MetricValue[]>,
  settings: AnomalySettings,
  logger: AlerterLogger,
): Promise<void> {
  const baselines = await currentBaselines(sql, context.now);
  const open = await sql<{ id: number; connection_id: number; database_name: string; metric_name: string }[]>`
    select id::int as id, connection_id, coalesce(database_name, '') as database_name, metric_name
    from alerts where alert_type = 'anomaly' and status <> 'cleared'`;
  const openBySeries = new Map<string, number[]>();
  for (const alert of open) {
    const key = baselineKey(alert.connection_id, alert.database_name, alert.metric_name, "");
    openBySeries.set(key, [...(openBySeries.get(key) ?? []), alert.id]);
  }
  const clears: { id: number; scope: Scope }[] = [];
  const raises: { metric: string; series: string; value: MetricValue; z: number; baseline: Baseline }[] = [];
  for (const [metric, list] of values) {
    for (const value of list) {
      const topology = context.connections.get(value.connection_id);
      if (!topology?.monitored) {
        continue;
      }
      const key = baselineKey(
        value.connection_id,
        value.database_name ?? "",
        metric,
        value.object_name ?? "",
      );
      const baseline = chooseBaseline(baselines.get(key) ?? [], context.now, settings);
      const spread = baseline ? spreadOf(baseline, settings) : 0;
      if (!baseline || spread === 0) {
        continue;
      }
      const series = seriesName(metric, value);
      const z = (value.value - baseline.mean) / spread;
      if (Math.abs(z) <= settings.sensitivity) {
        // Back within its band: the series' open anomaly alert clears.
        const scope = {
          connectionId: value.connection_id,
          clusterId: topology.clusterId,
          groupId: topology.groupId,
        };
        for (const id of openBySeries.get(
          baselineKey(value.connection_id, value.database_name ?? "", series, ""),
        ) ?? []) {
          clears.push({ id, scope });
        }
      } else if (!blackedOutValue(context, metric, value)) {
        raises.push({ metric, series, value, z, baseline });
      }
    }
  }
  if (clears.length === 0 && raises.length === 0) {
    return;
  }
  await writePass(sql, async (tx) => {
    await clearAlerts(tx, clears, context.now);
    for (const { metric, series, value, z, baseline } of raises) {
      await raise(tx, context, metric, series, value, z, baseline, settings, logger);
    }
  });
}

async function raise(
  sql: Queryable,
  context: EvaluationContext,
  metric: string,
  series: string,
  value: MetricValue,
  z: number,
  baseline: Baseline,
  settings: AnomalySettings,
  logger: AlerterLogger,
): Promise<void> {
  const iso = context.now.toISOString();
  const details = {
    z_score: z,
    baseline_mean: baseline.mean,
    baseline_stddev: baseline.stddev,
    sample_count: baseline.sample_count,
    baseline_period: baseline.period,
    baseline_period_value: baseline.period_value,
    time_zone: baseline.time_zone,
    series,
  };
  const database = value.database_name ?? "";
  const serverWide = isServerWide(metric, value);
  // While the series' anomaly alert is open, the alert is refreshed and no new candidate is made.
  const refreshed = await sql`
    update alerts set metric_value = ${value.value}, anomaly_score = ${z}, anomaly_details = ${JSON.stringify(details)}::jsonb,
      last_updated = ${iso}::timestamptz, server_wide = ${serverWide}
    where alert_type = 'anomaly' and status <> 'cleared' and metric_name = ${series}
      and connection_id = ${value.connection_id} and coalesce(database_name, '') = ${database}
    returning id`;
  if (refreshed.length > 0) {
    return;
  }
  // One open candidate per series: refreshed while it waits.
  await sql`
    insert into anomaly_candidates (connection_id, database_name, metric_name, metric_value, z_score, context, detected_at, last_seen_at)
    values (${value.connection_id}, ${database}, ${series}, ${value.value}, ${z}, ${JSON.stringify(details)}::jsonb, ${iso}::timestamptz, ${iso}::timestamptz)
    on conflict (connection_id, database_name, metric_name) where not processed do update set
      metric_value = excluded.metric_value, z_score = excluded.z_score, context = excluded.context,
      last_seen_at = excluded.last_seen_at`;
  const magnitude = Math.abs(z);
  const severity =
    magnitude >= 4 * settings.sensitivity
      ? "critical"
      : magnitude >= 2 * settings.sensitivity
        ? "warning"
        : "info";
  const [inserted] = await sql<{ id: number }[]>`
    insert into alerts (alert_type, connection_id, database_name, object_name, metric_name, metric_value, severity, title,
      description, server_wide, status, triggered_at, last_updated, anomaly_score, anomaly_details)
    values ('anomaly', ${value.connection_id}, ${value.database_name}, ${value.object_name}, ${series}, ${value.value},
      ${severity}, ${metric},
      ${`${metric} = ${value.value} is ${magnitude.toFixed(1)} standard deviations from its usual ${baseline.mean.toFixed(2)}${periodLabel(baseline)}`},
      ${serverWide}, 'active', ${iso}::timestamptz, ${iso}::timestamptz, ${z}, ${JSON.stringify(details)}::jsonb)
    on conflict do nothing returning id::int as id`;
  if (inserted) {
    await sql`
      update anomaly_candidates set processed = true, alert_id = ${inserted.id}
      where connection_id = ${value.connection_id} and database_name = ${database} and metric_name = ${series} and not processed`;
    const topology = context.connections.get(value.connection_id);
    logger.info(
      { alertId: inserted.id, metric: series, connectionId: value.connection_id, z },
      "anomaly alert fired",
    );
    await enqueue(
      sql,
      context.now,
      inserted.id,
      {
        connectionId: value.connection_id,
        clusterId: topology?.clusterId ?? null,
        groupId: topology?.groupId ?? null,
      },
      "alert_fire",
    );
  }
}
