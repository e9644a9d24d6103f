import { randomUUID } from "node:crypto";
import { type Datastore, isDatastoreUnavailable, type SecretKey } from "@dbmon/datastore";
import {
  createOutboundHostPolicy,
  type HostPolicy,
  probeCatalogue,
  recordHealthChecks,
} from "@dbmon/monitoring";
import { type AnomalySettings, defaultAnomalySettings, evaluateAnomalies } from "./anomaly.js";
import { type BaselineOptions, calculateBaselines } from "./baselines.js";
import { EvaluationContext } from "./context.js";
import { evaluateConnections, evaluateThresholds } from "./evaluate.js";
import type { AlerterLogger } from "./logger.js";
import { dispatchDue, queueReminders, type UnrecordedDelivery } from "./notify/queue.js";
import { runSchedules } from "./schedules.js";
import { moveServerAlerts } from "./server-alerts.js";

export interface AlerterClock {
  now(): Date;
}

export interface AlerterOptions {
  datastore: Datastore;
  logger: AlerterLogger;
  /** The key channel secrets were encrypted with (the same as the API's). */
  secretKey: SecretKey;
  clock?: AlerterClock;
  /** Where notifications may go; default: public hosts only (see createOutboundHostPolicy). */
  hosts?: HostPolicy;
  /** Seconds between evaluations of rules, connections and schedules (default 60). */
  evaluationSeconds?: number;
  /** Seconds between runs of the notification queue (default 15). */
  dispatchSeconds?: number;
  /** Seconds between reminder checks (default 3600). */
  reminderSeconds?: number;
  /** Tier-1 anomaly detection; false turns it off (default: on, sensitivity 3, 30 samples / 1 h warm-up). */
  anomaly?: Partial<AnomalySettings> | false;
  /** Seconds between recalculations of the anomaly baselines from the collected history (default 3600). */
  baselineSeconds?: number;
  /**
   * Run the periodic tasks (default true); false leaves every pass to evaluate()/dispatch()/remind()/
   * calculateBaselines().
   */
  timers?: boolean;
  /** A cleared alert does not fire again for the same key within this many seconds (default 300). */
  cooldownSeconds?: number;
}

export interface RunningAlerter {
  /** One evaluation pass now (rules, connections, schedules, health checks): what tests drive. */
  evaluate(): Promise<void>;
  /** Sends the notifications that are due now. */
  dispatch(): Promise<number>;
  /** Queues due reminders. */
  remind(): Promise<number>;
  /**
   * Updates the anomaly baselines from the collected history now (the hours since the last update;
   * with `full`, every hour of the window); false when another alerter is updating them (or anomaly
   * detection is off).
   */
  calculateBaselines(calculation?: { full?: boolean }): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * Starts the alerter: periodic evaluation of threshold rules and connection errors (blackouts,
 * overrides and durations applied), anomaly baselines and detection, the health checks, blackout
 * schedules, reminders and the notification queue.
 * Several alerters may share a datastore: alerts, windows and notifications are each created and
 * sent once (D11).
 */
export function startAlerter(options: AlerterOptions): RunningAlerter {
  const { datastore, logger } = options;
  const sql = datastore.sql;
  const clock = options.clock ?? { now: () => new Date() };
  const hosts = options.hosts ?? createOutboundHostPolicy({});
  const instanceId = `alerter-${randomUUID()}`;
  const settings = {
    cooldownSeconds: options.cooldownSeconds ?? 300,
    probeIntervals: new Map(probeCatalogue.map((probe) => [probe.name, probe.intervalSeconds])),
  };
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  let stopped = false;

  const anomaly = options.anomaly === false ? undefined : { ...defaultAnomalySettings, ...options.anomaly };
  const baselineSeconds = options.baselineSeconds ?? 3600;

  const evaluate = async () => {
    const started = performance.now();
    const now = clock.now();
    await runSchedules(sql, now, logger);
    const context = await EvaluationContext.load(sql, now);
    await moveServerAlerts(sql, context, logger);
    await evaluateConnections(sql, context, logger);
    const values = await evaluateThresholds(sql, context, settings, logger);
    if (anomaly) {
      await evaluateAnomalies(sql, context, values, anomaly, logger);
    }
    // A check that cannot read its rows is left unknown; the rules above are not held back by it.
    await recordHealthChecks(sql, now, (check, error) =>
      logger.warn({ err: error, check }, "health check could not be evaluated"),
    );
    // Whether a pass fits in its interval, for operators and `pnpm bench fleet`.
    logger.debug(
      { connections: context.connections.size, ms: Math.round(performance.now() - started) },
      "rules evaluated",
    );
  };
  const recalculate = async (options?: BaselineOptions) => {
    if (!anomaly) {
      return false;
    }
    const started = performance.now();
    const run = await calculateBaselines(sql, clock.now(), anomaly, logger, options);
    if (run) {
      logger.info({ ...run, ms: Math.round(performance.now() - started) }, "anomaly baselines calculated");
    }
    return run !== undefined;
  };
  const unrecorded = {
    pending: [] as UnrecordedDelivery[],
    unavailable: (error: unknown) => isDatastoreUnavailable(error, datastore),
  };
  const dispatch = () =>
    dispatchDue({ sql, secretKey: options.secretKey, hosts, now: clock.now(), instanceId, unrecorded });
  const remind = () => queueReminders(sql, clock.now());

  const every = (seconds: number, task: () => Promise<unknown>, name: string) => {
    let busy = false;
    const tick = () => {
      if (busy || stopped) {
        return;
      }
      busy = true;
      const run = task()
        .catch((error: unknown) => logger.error({ err: error, task: name }, "alerter task failed"))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    };
    timers.push(setInterval(tick, seconds * 1000));
    setImmediate(tick);
  };
  if (options.timers ?? true) {
    every(
      options.evaluationSeconds ?? 60,
      async () => {
        await evaluate();
        await dispatch();
      },
      "evaluate",
    );
    every(options.dispatchSeconds ?? 15, dispatch, "dispatch");
    every(options.reminderSeconds ?? 3600, remind, "remind");
    if (anomaly) {
      // At start and then periodically; alerters sharing the datastore skip baselines another one
      // has just calculated.
      every(baselineSeconds, () => recalculate({ unlessWithinSeconds: baselineSeconds }), "baselines");
    }
  }
  logger.info({ instanceId }, "alerter started");

  return {
    evaluate,
    dispatch,
    remind,
    calculateBaselines: (calculation?: { full?: boolean }) => recalculate(calculation),
    async stop() {
      stopped = true;
      for (const timer of timers) {
        clearInterval(timer);
      }
      await Promise.allSettled([...running]);
      logger.info({ instanceId }, "alerter stopped");
    },
  };
}
