/** The interquartile range of normally distributed values is 1.349 standard deviations. */
const IQR_PER_STDDEV = 1.349;

/**
 * One series' partial aggregate of one hour (a row of `metric_baseline_hours`), times in epoch µs;
 * a series' partials come in hour order.
 */
export interface HourPartial {
  hourOfDay: number;
  dayOfWeek: number;
  timeZone: string;
  count: number;
  mean: number;
  m2: number;
  min: number;
  max: number;
  firstUs: number;
  lastUs: number;
}

export type PeriodKind = "all" | "hour_of_day" | "day_of_week";

/** A merged baseline of one period, as stored in `metric_baselines`. */
export interface MergedBaseline {
  period: PeriodKind;
  periodValue: number;
  timeZone: string;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  sampleCount: number;
  outlierCount: number;
  firstUs: number;
  lastUs: number;
}

export interface MergeSettings {
  /** How many spreads from the median an hour's mean may lie before it is left out. */
  sensitivity: number;
  /** Samples a period of the day or week needs to be kept (the whole window is always kept). */
  periodSamples: number;
  /** Hours of the day and days of the week to merge (the others did not change). */
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
}

/** Linear interpolation between the closest ranks, as PostgreSQL's percentile_cont. */
function percentile(sorted: Float64Array, fraction: number): number {
  const position = fraction * (sorted.length - 1);
  const lower = Math.floor(position);
  const below = sorted[lower] as number;
  return lower + 1 < sorted.length
    ? below + (position - lower) * ((sorted[lower + 1] as number) - below)
    : below;
}

/**
 * Merges hourly partials into one period's baseline, leaving out outlier hours: an hour whose mean lies
 * further from the median hourly mean than sensitivity × the typical spread (the hourly means' IQR /
 * 1.349 combined with the median hour's variance) is not counted in mean and stddev. Sample-level
 * quartiles of a week cannot be merged from partials; hours can. The sums are taken around the median
 * so that the sum of squares does not cancel.
 */
export function mergePeriod(
  period: PeriodKind,
  periodValue: number,
  hours: readonly HourPartial[],
  sensitivity: number,
): MergedBaseline {
  const means = new Float64Array(hours.length);
  const variances = new Float64Array(hours.length);
  // The zone of the latest hour: after a server changed its TimeZone, that is the one it keeps now.
  const timeZone = (hours[hours.length - 1] as HourPartial).timeZone;
  let min = Infinity;
  let max = -Infinity;
  let sampleCount = 0;
  let firstUs = Infinity;
  let lastUs = -Infinity;
  hours.forEach((hour, index) => {
    means[index] = hour.mean;
    variances[index] = hour.m2 / hour.count;
    min = Math.min(min, hour.min);
    max = Math.max(max, hour.max);
    sampleCount += hour.count;
    firstUs = Math.min(firstUs, hour.firstUs);
    lastUs = Math.max(lastUs, hour.lastUs);
  });
  means.sort();
  variances.sort();
  const median = percentile(means, 0.5);
  const iqr = percentile(means, 0.75) - percentile(means, 0.25);
  const spread = Math.sqrt((iqr / IQR_PER_STDDEV) ** 2 + percentile(variances, 0.5));
  let n = 0;
  let s1 = 0;
  let s2 = 0;
  let outlierCount = 0;
  for (const hour of hours) {
    const offset = hour.mean - median;
    if (spread === 0 || Math.abs(offset) <= sensitivity * spread) {
      n += hour.count;
      s1 += hour.count * offset;
      s2 += hour.m2 + hour.count * offset * offset;
    } else {
      outlierCount += hour.count;
    }
  }
  return {
    period,
    periodValue,
    timeZone,
    mean: median + s1 / n,
    stddev: Math.sqrt(Math.max(0, (s2 - (s1 * s1) / n) / n)),
    min,
    max,
    sampleCount,
    outlierCount,
    firstUs,
    lastUs,
  };
}

/**
 * One series' baselines from its partials of the window: the whole window, and each changed hour of
 * the day and day of the week that has `periodSamples` samples.
 */
export function mergeSeries(hours: readonly HourPartial[], settings: MergeSettings): MergedBaseline[] {
  const merged = [mergePeriod("all", 0, hours, settings.sensitivity)];
  const byHour = new Map<number, HourPartial[]>();
  const byDay = new Map<number, HourPartial[]>();
  for (const hour of hours) {
    if (settings.hours.has(hour.hourOfDay)) {
      pushTo(byHour, hour.hourOfDay, hour);
    }
    if (settings.days.has(hour.dayOfWeek)) {
      pushTo(byDay, hour.dayOfWeek, hour);
    }
  }
  for (const [kind, groups] of [
    ["hour_of_day", byHour],
    ["day_of_week", byDay],
  ] as const) {
    for (const [value, group] of groups) {
      if (group.reduce((sum, hour) => sum + hour.count, 0) >= settings.periodSamples) {
        merged.push(mergePeriod(kind, value, group, settings.sensitivity));
      }
    }
  }
  return merged;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) {
    list.push(value);
  } else {
    map.set(key, [value]);
  }
}
