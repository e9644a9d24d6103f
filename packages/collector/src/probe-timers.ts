import type { ProbeDefinition } from "./probes/types.js";

/** How a probe runs now (from the probe configuration). */
export interface ProbeSchedule {
  enabled: boolean;
  intervalSeconds: number;
}

export interface ProbeTimerSettings {
  /** The probes these timers run. */
  probes: readonly ProbeDefinition[];
  schedule(probe: ProbeDefinition): ProbeSchedule;
  /** Delay of a probe's first run when nothing ran it before. */
  firstRunDelayMs(probe: ProbeDefinition, schedule: ProbeSchedule): number;
  run(probe: ProbeDefinition): Promise<void>;
}

/**
 * One timer per probe: a run never overlaps the previous run of the same probe, and the next run is
 * planned from when the last one was due (not from when its timer fired, a few milliseconds late
 * each time), so a probe keeps its rhythm and its phase from run to run. A connection's probes that
 * share a phase therefore keep meeting, and one monitored session serves all of them (see
 * `ConnectionMonitor`); drifting apart, each would open a session of its own.
 */
export class ProbeTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** The settings each probe's pending timer was planned with. */
  private readonly planned = new Map<string, ProbeSchedule>();
  /** When each probe's last run was due (epoch ms): the next is due an interval later. */
  private readonly lastDueAt = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly settings: ProbeTimerSettings) {}

  /** Resumes each probe's rhythm from its last run (epoch ms, by any collector), then schedules. */
  start(lastRunMs: ReadonlyMap<string, number>, nowMs: number): void {
    for (const [probe, at] of lastRunMs) {
      // Converted to this process's clock: only the distance to now matters.
      this.lastDueAt.set(probe, Date.now() - (nowMs - at));
    }
    this.applySchedules();
  }

  /**
   * Follows the probe configuration: a probe whose interval changed is rescheduled from its last
   * run, a disabled one stops, an enabled one starts (at once when it is due).
   */
  applySchedules(): void {
    for (const probe of this.settings.probes) {
      const wanted = this.settings.schedule(probe);
      const planned = this.planned.get(probe.name);
      if (
        planned &&
        planned.enabled === wanted.enabled &&
        planned.intervalSeconds === wanted.intervalSeconds
      ) {
        continue;
      }
      if (this.inFlight.has(probe.name)) {
        // The run's end plans the next one with the new settings.
        this.planned.delete(probe.name);
        continue;
      }
      clearTimeout(this.timers.get(probe.name));
      this.timers.delete(probe.name);
      this.plan(probe);
    }
  }

  /** Stops scheduling and waits for runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) {
      clearTimeout(timer);
    }
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private plan(probe: ProbeDefinition): void {
    const schedule = this.settings.schedule(probe);
    this.planned.set(probe.name, schedule);
    if (this.stopped || !schedule.enabled) {
      return;
    }
    const last = this.lastDueAt.get(probe.name);
    const intervalMs = schedule.intervalSeconds * 1000;
    this.arm(
      probe,
      last === undefined ? Date.now() + this.settings.firstRunDelayMs(probe, schedule) : last + intervalMs,
      intervalMs,
    );
  }

  /**
   * Runs the probe at `dueAt` (epoch ms), at once when that has passed. A run that starts later than
   * a fifth of its interval (a busy process, a slow run before it) sets a new phase from its start:
   * kept, the phase would bring the next run in sooner than that, or back to back to catch up.
   */
  private arm(probe: ProbeDefinition, dueAt: number, intervalMs: number): void {
    const timer = setTimeout(
      () => {
        const startedAt = Date.now();
        this.timers.delete(probe.name);
        this.lastDueAt.set(probe.name, startedAt - dueAt > intervalMs / 5 ? startedAt : dueAt);
        this.inFlight.add(probe.name);
        const run = this.settings.run(probe).finally(() => {
          this.running.delete(run);
          this.inFlight.delete(probe.name);
          this.plan(probe);
        });
        this.running.add(run);
      },
      Math.max(0, dueAt - Date.now()),
    );
    timer.unref();
    this.timers.set(probe.name, timer);
  }
}

const GOLDEN_RATIO_FRACTION = 0.618_033_988_75;

/**
 * Where in the spread window a probe first runs: the probes of a connection evenly apart, and each
 * connection's pattern shifted by a fraction of the window derived from its id (golden-ratio steps
 * keep neighbouring ids far apart). Later runs keep this phase, since they follow the last start.
 */
export function firstRunOffsetMs(
  probeIndex: number,
  probeCount: number,
  connectionId: number,
  windowMs: number,
): number {
  const position = probeIndex / probeCount + connectionId * GOLDEN_RATIO_FRACTION;
  return Math.floor((position % 1) * windowMs);
}
