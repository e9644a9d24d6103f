import type { Sql } from "@dbmon/datastore";
import type { EvaluationContext } from "./context.js";
import { clearAlerts, writePass } from "./evaluate.js";
import type { AlerterLogger } from "./logger.js";
import { isServerWide, type MetricValue } from "./metrics.js";
import { enqueueEach, type Queryable, type Scope } from "./notify/queue.js";
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
    await raise(tx, context, raises, settings, logger);
  });
}

/** An anomaly of one series, as raise writes it: the alert's and the candidate's columns. */
interface Raised {
  connectionId: number;
  /** '' for none, as the candidates store it. */
  database: string;
  value: MetricValue;
  series: string;
  z: number;
  details: string;
  serverWide: boolean;
  severity: "critical" | "warning" | "info";
  title: string;
  description: string;
}

const raisedKey = (connectionId: number, database: string, series: string) =>
  JSON.stringify([connectionId, database, series]);

/**
 * Writes the pass's anomalies in a few statements, whatever their number. A series whose anomaly
 * alert is open has it refreshed; any other keeps one open candidate (refreshed while it waits) and
 * gets an alert, unless another alerter opened one meanwhile.
 */
async function raise(
  sql: Queryable,
  context: EvaluationContext,
  raises: readonly { metric: string; series: string; value: MetricValue; z: number; baseline: Baseline }[],
  settings: AnomalySettings,
  logger: AlerterLogger,
): Promise<void> {
  if (raises.length === 0) {
    return;
  }
  const iso = context.now.toISOString();
  // One row per series (the last value, as the statements below must not meet a key twice).
  const bySeries = new Map<string, Raised>();
  for (const { metric, series, value, z, baseline } of raises) {
    const magnitude = Math.abs(z);
    const database = value.database_name ?? "";
    bySeries.set(raisedKey(value.connection_id, database, series), {
      connectionId: value.connection_id,
      database,
      value,
      series,
      z,
      details: JSON.stringify({
        z_score: z,
        baseline_mean: baseline.mean,
        baseline_stddev: baseline.stddev,
        sample_count: baseline.sample_count,
        baseline_period: baseline.period,
        baseline_period_value: baseline.period_value,
        time_zone: baseline.time_zone,
        series,
      }),
      serverWide: isServerWide(metric, value),
      severity:
        magnitude >= 4 * settings.sensitivity
          ? "critical"
          : magnitude >= 2 * settings.sensitivity
            ? "warning"
            : "info",
      title: metric,
      description: `${metric} = ${value.value} is ${magnitude.toFixed(1)} standard deviations from its usual ${baseline.mean.toFixed(2)}${periodLabel(baseline)}`,
    });
  }
  const all = [...bySeries.values()];
  // While the series' anomaly alert is open, the alert is refreshed and no new candidate is made.
  const refreshed = await sql<{ connection_id: number; database_name: string; series: string }[]>`
    update alerts a set metric_value = k.value, anomaly_score = k.z, anomaly_details = k.details::jsonb,
      last_updated = ${iso}::timestamptz, server_wide = k.server_wide::boolean
    from unnest(${all.map((r) => r.connectionId)}::int[], ${all.map((r) => r.database)}::text[],
      ${all.map((r) => r.series)}::text[], ${all.map((r) => r.value.value)}::float8[], ${all.map((r) => r.z)}::float8[],
      ${all.map((r) => r.details)}::text[], ${all.map((r) => String(r.serverWide))}::text[])
      k(connection_id, database_name, series, value, z, details, server_wide)
    where a.alert_type = 'anomaly' and a.status <> 'cleared' and a.metric_name = k.series
      and a.connection_id = k.connection_id and coalesce(a.database_name, '') = k.database_name
    returning k.connection_id, k.database_name, k.series`;
  for (const row of refreshed) {
    bySeries.delete(raisedKey(row.connection_id, row.database_name, row.series));
  }
  const fresh = [...bySeries.values()];
  if (fresh.length === 0) {
    return;
  }
  // A new fragment for each statement that reads the rows.
  const columns =
    () => sql`unnest(${fresh.map((r) => r.connectionId)}::int[], ${fresh.map((r) => r.database)}::text[],
      ${fresh.map((r) => r.value.database_name)}::text[], ${fresh.map((r) => r.value.object_name)}::text[],
      ${fresh.map((r) => r.series)}::text[], ${fresh.map((r) => r.value.value)}::float8[], ${fresh.map((r) => r.z)}::float8[],
      ${fresh.map((r) => r.details)}::text[], ${fresh.map((r) => String(r.serverWide))}::text[],
      ${fresh.map((r) => r.severity)}::text[], ${fresh.map((r) => r.title)}::text[], ${fresh.map((r) => r.description)}::text[])
      with ordinality k(connection_id, database, database_name, object_name, series, value, z, details, server_wide,
        severity, title, description, n)`;
  // One open candidate per series: refreshed while it waits.
  await sql`
    insert into anomaly_candidates (connection_id, database_name, metric_name, metric_value, z_score, context, detected_at, last_seen_at)
    select k.connection_id, k.database, k.series, k.value, k.z, k.details::jsonb, ${iso}::timestamptz, ${iso}::timestamptz
    from ${columns()} order by k.n
    on conflict (connection_id, database_name, metric_name) where not processed do update set
      metric_value = excluded.metric_value, z_score = excluded.z_score, context = excluded.context,
      last_seen_at = excluded.last_seen_at`;
  const inserted = await sql<{ id: number; connection_id: number; database: string; series: string }[]>`
    insert into alerts (alert_type, connection_id, database_name, object_name, metric_name, metric_value, severity, title,
      description, server_wide, status, triggered_at, last_updated, anomaly_score, anomaly_details)
    select 'anomaly', k.connection_id, k.database_name, k.object_name, k.series, k.value, k.severity, k.title,
      k.description, k.server_wide::boolean, 'active', ${iso}::timestamptz, ${iso}::timestamptz, k.z, k.details::jsonb
    from ${columns()} order by k.n
    on conflict do nothing
    returning id::int as id, connection_id, coalesce(database_name, '') as database, metric_name as series`;
  if (inserted.length === 0) {
    return;
  }
  await sql`
    update anomaly_candidates c set processed = true, alert_id = k.alert_id
    from unnest(${inserted.map((r) => r.id)}::bigint[], ${inserted.map((r) => r.connection_id)}::int[],
      ${inserted.map((r) => r.database)}::text[], ${inserted.map((r) => r.series)}::text[])
      k(alert_id, connection_id, database_name, metric_name)
    where c.connection_id = k.connection_id and c.database_name = k.database_name and c.metric_name = k.metric_name
      and not c.processed`;
  const opened: { alertId: number; scope: Scope }[] = [];
  for (const row of inserted) {
    const topology = context.connections.get(row.connection_id);
    logger.info(
      {
        alertId: row.id,
        metric: row.series,
        connectionId: row.connection_id,
        z: bySeries.get(raisedKey(row.connection_id, row.database, row.series))?.z,
      },
      "anomaly alert fired",
    );
    opened.push({
      alertId: row.id,
      scope: {
        connectionId: row.connection_id,
        clusterId: topology?.clusterId ?? null,
        groupId: topology?.groupId ?? null,
      },
    });
  }
  await enqueueEach(sql, context.now, opened, "alert_fire");
}
