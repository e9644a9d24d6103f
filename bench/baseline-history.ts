// A week of hourly baseline partials without a week of collected history: copies of real ones.
import {
  type AlerterLogger,
  type RunningAlerter,
  silentAlerterLogger,
  startAlerter,
} from "../packages/alerter/src/index.js";
import type { Datastore, SecretKey, Sql } from "../packages/datastore/src/index.js";

/**
 * Copies the partials of the hour starting at `hourStart` to each of the `hours` hours before it, their
 * means moved a little (±10 %), so that an update merges as many partials per series as it would
 * after that many hours of collection.
 */
export async function copyPartialsBack(sql: Sql, hourStart: Date, hours: number): Promise<void> {
  await sql`
    insert into metric_baseline_hours
    select h.metric_name, h.connection_id, h.database_name, h.object_name, h.hour_start - make_interval(hours => k),
      extract(hour from (h.hour_start - make_interval(hours => k)) at time zone h.time_zone)::smallint,
      extract(dow from (h.hour_start - make_interval(hours => k)) at time zone h.time_zone)::smallint,
      h.time_zone, h.sample_count, h.mean * (0.9 + random() * 0.2), h.m2, h.min, h.max,
      h.first_sample_at - make_interval(hours => k), h.last_sample_at - make_interval(hours => k)
    from metric_baseline_hours h, generate_series(1, ${hours}::int) k
    where h.hour_start = ${hourStart.toISOString()}::timestamptz`;
  await sql`analyze metric_baseline_hours`;
}

/** What an alerter's baseline updates spent on each step, as its debug log reports them. */
export interface BaselineSteps {
  partialsMs: number;
  mergeMs: number;
}

/**
 * An alerter of the benches: no timers (it runs when told), on the `now` clock, logging to `logger`
 * (silent by default). It has no notification channels, so its key is never used.
 */
export function benchAlerter(
  datastore: Datastore,
  now: () => Date,
  logger: AlerterLogger = silentAlerterLogger,
): RunningAlerter {
  return startAlerter({
    datastore,
    logger,
    secretKey: Buffer.alloc(32) as SecretKey,
    clock: { now },
    timers: false,
  });
}

/** An alerter without timers on the `now` clock, adding the step times of its baseline updates to `steps`. */
export function stepTimedAlerter(
  datastore: Datastore,
  now: () => Date,
): { alerter: RunningAlerter; steps: BaselineSteps } {
  const steps: BaselineSteps = { partialsMs: 0, mergeMs: 0 };
  const alerter = benchAlerter(datastore, now, {
    ...silentAlerterLogger,
    debug: (entry: { partialsMs?: number; mergeMs?: number }) => {
      steps.partialsMs += entry.partialsMs ?? 0;
      steps.mergeMs += entry.mergeMs ?? 0;
    },
  });
  return { alerter, steps };
}
