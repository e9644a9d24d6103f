import type { Sql } from "@dbmon/datastore";
import type { EvaluationContext } from "./context.js";
import { clearAlert } from "./evaluate.js";
import type { AlerterLogger } from "./logger.js";
import type { MetricValue } from "./metrics.js";
import { enqueue } from "./notify/queue.js";

export interface AnomalySettings {
  /** |z| above this is an anomaly (default 3). */
  sensitivity: number;
  /** Samples a baseline needs before it is used (default 30). */
  warmupSamples: number;
  /** Time a baseline must span before it is used (default 1 hour). */
  warmupSeconds: number;
  /** The smallest standard deviation used, as a fraction of |mean| (default 0.05): flat series stay quiet. */
  varianceFloor: number;
}

export const defaultAnomalySettings: AnomalySettings = {
  sensitivity: 3,
  warmupSamples: 30,
  warmupSeconds: 3600,
  varianceFloor: 0.05,
};

interface Baseline {
  mean: number;
  stddev: number;
  sample_count: number;
  first_sample_at: string;
}

/** The series a value belongs to: the metric, plus the object for per-object metrics. */
const seriesName = (metric: string, value: MetricValue) =>
  value.object_name ? `${metric}#${value.object_name}` : metric;

/**
 * Tier 1 anomaly detection: each value is scored against its series' baseline (running mean and
 * standard deviation of earlier evaluations) before being added to it. Baselines in warm-up, and
 * series whose spread is below the variance floor, produce nothing. An anomalous value opens (or
 * refreshes) one candidate per series and one anomaly alert; the alert clears when the series is back
 * within its band. Outliers are not folded into the baseline.
 */
export async function evaluateAnomalies(
  sql: Sql,
  context: EvaluationContext,
  values: Map<string, MetricValue[]>,
  settings: AnomalySettings,
  logger: AlerterLogger,
): Promise<void> {
  const iso = context.now.toISOString();
  for (const [metric, list] of values) {
    for (const value of list) {
      const topology = context.connections.get(value.connection_id);
      if (!topology?.monitored) {
        continue;
      }
      const series = seriesName(metric, value);
      const database = value.database_name ?? "";
      const [baseline] = await sql<Baseline[]>`
        select mean, stddev, sample_count, first_sample_at from metric_baselines
        where connection_id = ${value.connection_id} and database_name = ${database} and metric_name = ${series}`;
      let anomalous = false;
      if (baseline) {
        const warm =
          baseline.sample_count >= settings.warmupSamples &&
          context.now.getTime() - new Date(baseline.first_sample_at).getTime() >=
            settings.warmupSeconds * 1000;
        const spread = Math.max(baseline.stddev, Math.abs(baseline.mean) * settings.varianceFloor);
        if (warm && spread > 0) {
          const z = (value.value - baseline.mean) / spread;
          anomalous = Math.abs(z) > settings.sensitivity;
          if (anomalous && !context.blackedOut(value.connection_id, value.database_name)) {
            await raise(sql, context, metric, series, value, z, baseline, settings, logger);
          }
          if (!anomalous) {
            await resolve(sql, context, series, value);
          }
        }
      }
      if (!anomalous) {
        // Welford's update of the running mean and (population) variance.
        await sql`
          insert into metric_baselines as b (connection_id, database_name, metric_name, mean, stddev, sample_count,
            first_sample_at, last_calculated)
          values (${value.connection_id}, ${database}, ${series}, ${value.value}, 0, 1, ${iso}::timestamptz, ${iso}::timestamptz)
          on conflict (connection_id, database_name, metric_name) do update set
            mean = b.mean + (${value.value} - b.mean) / (b.sample_count + 1),
            stddev = sqrt(greatest(0, (b.stddev ^ 2 * b.sample_count
              + (${value.value} - b.mean) * (${value.value} - (b.mean + (${value.value} - b.mean) / (b.sample_count + 1))))
              / (b.sample_count + 1))),
            sample_count = b.sample_count + 1,
            last_calculated = excluded.last_calculated`;
      }
    }
  }
}

async function raise(
  sql: Sql,
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
    series,
  };
  const database = value.database_name ?? "";
  // While the series' anomaly alert is open, the alert is refreshed and no new candidate is made.
  const refreshed = await sql`
    update alerts set metric_value = ${value.value}, anomaly_score = ${z}, anomaly_details = ${JSON.stringify(details)}::jsonb,
      last_updated = ${iso}::timestamptz
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
      description, status, triggered_at, last_updated, anomaly_score, anomaly_details)
    values ('anomaly', ${value.connection_id}, ${value.database_name}, ${value.object_name}, ${series}, ${value.value},
      ${severity}, ${metric},
      ${`${metric} = ${value.value} is ${magnitude.toFixed(1)} standard deviations from its usual ${baseline.mean.toFixed(2)}`},
      'active', ${iso}::timestamptz, ${iso}::timestamptz, ${z}, ${JSON.stringify(details)}::jsonb)
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

async function resolve(
  sql: Sql,
  context: EvaluationContext,
  series: string,
  value: MetricValue,
): Promise<void> {
  const open = await sql<{ id: number }[]>`
    select id::int as id from alerts where alert_type = 'anomaly' and status <> 'cleared' and metric_name = ${series}
      and connection_id = ${value.connection_id} and coalesce(database_name, '') = ${value.database_name ?? ""}`;
  const topology = context.connections.get(value.connection_id);
  for (const alert of open) {
    await clearAlert(sql, alert.id, context.now, {
      connectionId: value.connection_id,
      clusterId: topology?.clusterId ?? null,
      groupId: topology?.groupId ?? null,
    });
  }
}
