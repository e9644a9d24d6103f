import type { Sql } from "@dbmon/datastore";
import type { Clock, CollectorLogger } from "./logger.js";
import { type ProbeContext, type ProbeDefinition, type ProbeRow, queryForVersion } from "./probes/types.js";
import { ConnectError, describeError, type QueryFn, RunTimeoutError, ServerSessions } from "./sessions.js";
import type { PartitionManager } from "./storage.js";
import { storeProbeRun } from "./storage.js";
import type { ConnectionRow, ServerTarget } from "./target.js";

/** How a probe runs on a connection now (from the probe configuration). */
export interface ProbeSchedule {
  enabled: boolean;
  intervalSeconds: number;
}

export interface MonitorSettings {
  probes: readonly ProbeDefinition[];
  schedule(connectionId: number, probe: ProbeDefinition): ProbeSchedule;
  maxSessionsPerServer: number;
  connectTimeoutSeconds: number;
  runTimeoutSeconds: number;
  idleSessionSeconds: number;
  /** The window first runs are spread over now (it grows with the number of connections). */
  firstRunSpreadSeconds(): number;
  backoffInitialSeconds: number;
  backoffMaxSeconds: number;
}

export interface MonitorDeps {
  sql: Sql;
  /** This collector's name in `collector_leases`: runs are stored only while it holds the lease. */
  leaseHolder: string;
  logger: CollectorLogger;
  clock: Clock;
  partitions: PartitionManager;
  settings: MonitorSettings;
}

const SYSTEM_STATS_PROBE_FUNCTION = "pg_sys_os_info";
const GOLDEN_RATIO_FRACTION = 0.618_033_988_75;

/**
 * Collects one connection: each probe on its own timer, a run never overlapping the previous run of
 * the same probe; while the server is unreachable, runs are skipped with exponential backoff.
 */
export class ConnectionMonitor {
  private readonly sessions: ServerSessions;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** The settings each probe's pending timer was planned with. */
  private readonly planned = new Map<string, ProbeSchedule>();
  private readonly lastStartedAt = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  private consecutiveFailures = 0;
  private lastFailureAt = 0;
  private retryAt = 0;
  private recordedError: string | null;

  constructor(
    readonly connection: ConnectionRow,
    readonly fingerprint: string,
    private readonly target: ServerTarget,
    private readonly deps: MonitorDeps,
  ) {
    const { settings } = deps;
    this.recordedError = connection.connection_error;
    this.sessions = new ServerSessions(target, {
      maxSessions: settings.maxSessionsPerServer,
      connectTimeoutSeconds: settings.connectTimeoutSeconds,
      statementTimeoutMs: settings.runTimeoutSeconds * 1000,
      idleSessionMs: settings.idleSessionSeconds * 1000,
    });
  }

  /** Schedules every probe, resuming each one's rhythm from its last run (by any collector). */
  async start(): Promise<void> {
    const lastRuns = await this.deps.sql<{ probe_name: string; last_run_ms: number }[]>`
      select probe_name, (extract(epoch from last_run_at) * 1000)::float8 as last_run_ms
      from probe_runs where connection_id = ${this.connection.id}`;
    const now = this.deps.clock.now().getTime();
    for (const run of lastRuns) {
      // Converted to this process's monotonic-ish clock: only the distance to now matters.
      this.lastStartedAt.set(run.probe_name, Date.now() - (now - run.last_run_ms));
    }
    this.applySchedules();
  }

  /**
   * Follows the probe configuration: a probe whose interval changed is rescheduled from its last
   * run, a disabled one stops, an enabled one starts (at once when it is due).
   */
  applySchedules(): void {
    for (const probe of this.deps.settings.probes) {
      const wanted = this.deps.settings.schedule(this.connection.id, probe);
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

  /** Stops scheduling, waits for runs in progress, closes the sessions. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) {
      clearTimeout(timer);
    }
    this.timers.clear();
    await this.sessions.close();
    await Promise.allSettled([...this.running]);
  }

  /** Schedules the next run of a probe after its last start, per its current settings. */
  private plan(probe: ProbeDefinition): void {
    const schedule = this.deps.settings.schedule(this.connection.id, probe);
    this.planned.set(probe.name, schedule);
    if (this.stopped || !schedule.enabled) {
      return;
    }
    const last = this.lastStartedAt.get(probe.name);
    const delay =
      last === undefined
        ? this.firstRunOffsetMs(probe, schedule)
        : Math.max(0, last + schedule.intervalSeconds * 1000 - Date.now());
    const timer = setTimeout(() => {
      this.timers.delete(probe.name);
      this.lastStartedAt.set(probe.name, Date.now());
      this.inFlight.add(probe.name);
      const run = this.runProbe(probe).finally(() => {
        this.running.delete(run);
        this.inFlight.delete(probe.name);
        this.plan(probe);
      });
      this.running.add(run);
    }, delay);
    timer.unref();
    this.timers.set(probe.name, timer);
  }

  private firstRunOffsetMs(probe: ProbeDefinition, schedule: ProbeSchedule): number {
    const { probes, firstRunSpreadSeconds } = this.deps.settings;
    const windowMs = Math.min(firstRunSpreadSeconds(), schedule.intervalSeconds) * 1000;
    return firstRunOffsetMs(probes.indexOf(probe), probes.length, this.connection.id, windowMs);
  }

  private async runProbe(probe: ProbeDefinition): Promise<void> {
    const attemptAt = Date.now();
    if (attemptAt < this.retryAt) {
      return;
    }
    const collectedAt = this.deps.clock.now();
    const deadline = attemptAt + this.deps.settings.runTimeoutSeconds * 1000;
    let rows: ProbeRow[] | null;
    try {
      rows = await this.collect(probe, deadline);
    } catch (error) {
      if (error instanceof ConnectError) {
        await this.connectionFailed(error, attemptAt);
      } else if (!this.stopped) {
        this.deps.logger.warn(
          { connectionId: this.connection.id, probe: probe.name, err: describeError(error) },
          error instanceof RunTimeoutError ? "probe run timed out" : "probe run failed",
        );
      }
      return;
    }
    await this.connectionSucceeded();
    if (this.stopped) {
      return;
    }
    try {
      await this.deps.partitions.ensureFor(probe, collectedAt);
      const stored = await storeProbeRun(
        this.deps.sql,
        this.deps.logger,
        probe,
        this.connection.id,
        collectedAt,
        rows,
        this.deps.leaseHolder,
      );
      if (stored.leaseLost) {
        this.deps.logger.debug(
          { connectionId: this.connection.id, probe: probe.name },
          "lease lost: the run is not stored",
        );
      }
    } catch (error) {
      this.deps.logger.error(
        { connectionId: this.connection.id, probe: probe.name, err: describeError(error) },
        "storing a probe run failed",
      );
    }
  }

  private async collect(probe: ProbeDefinition, deadline: number): Promise<ProbeRow[] | null> {
    const home = this.connection.database_name;
    if (probe.scope !== "database") {
      return this.sessions.withSession(home, deadline, async (query) =>
        this.runOn(probe, await this.context(probe, query)),
      );
    }
    const databases = await this.sessions.withSession(home, deadline, (query) =>
      query(
        tagged(
          probe,
          // Only databases the role may connect to: a refused connection attempt per run helps no one.
          `select datname::text as datname from pg_database
           where datallowconn and not datistemplate and has_database_privilege(datname, 'CONNECT')
           order by datname`,
        ),
      ),
    );
    const rows: ProbeRow[] = [];
    for (const { datname } of databases) {
      const database = String(datname);
      try {
        const found = await this.sessions.withSession(database, deadline, async (query) =>
          this.runOn(probe, await this.context(probe, query)),
        );
        for (const row of found ?? []) {
          rows.push({ ...row, database_name: database });
        }
      } catch (error) {
        if (error instanceof RunTimeoutError) {
          throw error;
        }
        // One database that refuses us (privileges, dropped meanwhile) does not fail the others.
        this.deps.logger.debug(
          { connectionId: this.connection.id, probe: probe.name, database, err: describeError(error) },
          "probe skipped a database",
        );
      }
    }
    return rows;
  }

  private async context(probe: ProbeDefinition, query: QueryFn): Promise<ProbeContext> {
    const taggedQuery: QueryFn = (text) => query(tagged(probe, text));
    let systemStatsSchema: string | null = null;
    if (probe.scope === "host") {
      const [found] = await taggedQuery(
        `select n.nspname::text as schema from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where p.proname = '${SYSTEM_STATS_PROBE_FUNCTION}' and p.pronargs = 0 order by n.nspname limit 1`,
      );
      systemStatsSchema = found ? String(found.schema) : null;
    }
    return {
      query: taggedQuery,
      serverVersionNum: this.sessions.serverVersionNum,
      systemStatsSchema,
      isLocalHost: this.target.isLocalHost,
    };
  }

  private async runOn(probe: ProbeDefinition, context: ProbeContext): Promise<ProbeRow[] | null> {
    if (probe.collect) {
      return probe.collect(context);
    }
    const text = queryForVersion(probe.queries ?? [], context.serverVersionNum);
    return text === undefined ? null : context.query(text);
  }

  private async connectionFailed(error: ConnectError, attemptAt: number): Promise<void> {
    if (this.stopped) {
      return;
    }
    // Runs that started before the last failure fail for the same outage: count it once.
    if (attemptAt >= this.lastFailureAt) {
      this.consecutiveFailures += 1;
      this.lastFailureAt = Date.now();
      const { backoffInitialSeconds, backoffMaxSeconds } = this.deps.settings;
      const delaySeconds = Math.min(
        backoffMaxSeconds,
        backoffInitialSeconds * 2 ** (this.consecutiveFailures - 1),
      );
      this.retryAt = this.lastFailureAt + delaySeconds * 1000;
      this.deps.logger.debug(
        {
          connectionId: this.connection.id,
          failures: this.consecutiveFailures,
          retryInSeconds: delaySeconds,
        },
        "connection attempt failed",
      );
    }
    const message = this.redact(`connection error: ${error.message}`);
    if (message !== this.recordedError) {
      this.recordedError = message;
      this.deps.logger.warn(
        { connectionId: this.connection.id, error: message },
        "monitored server unreachable",
      );
      await this.recordError(message);
    }
  }

  private async connectionSucceeded(): Promise<void> {
    this.consecutiveFailures = 0;
    this.retryAt = 0;
    if (this.recordedError !== null && !this.stopped) {
      this.recordedError = null;
      this.deps.logger.info({ connectionId: this.connection.id }, "monitored server reachable again");
      await this.recordError(null);
    }
  }

  private async recordError(message: string | null): Promise<void> {
    try {
      await this.deps.sql`
        update connections set connection_error = ${message}
        where id = ${this.connection.id} and connection_error is distinct from ${message}`;
    } catch (error) {
      this.deps.logger.error(
        { connectionId: this.connection.id, err: describeError(error) },
        "recording the connection state failed",
      );
    }
  }

  /** Driver messages do not carry the password, but make sure no error text ever does. */
  private redact(message: string): string {
    const password = this.target.password;
    return password ? message.replaceAll(password, "********") : message;
  }
}

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

/** Marks collector queries so that they can be told apart in pg_stat_activity. */
function tagged(probe: ProbeDefinition, text: string): string {
  return `/* dbmon collector: ${probe.name} */ ${text}`;
}
