import type { ServerDirectoryEntry, Sql } from "@dbmon/datastore";
import type { ActivityStore } from "./activity-store.js";
import { FailureBackoff } from "./backoff.js";
import type { ChangedRowsMemory } from "./changed-rows.js";
import type { Clock, CollectorLogger } from "./logger.js";
import { ProbeFailureLog, runProbeOn, tagged } from "./probe-run.js";
import { type ProbeSchedule, ProbeTimers } from "./probe-timers.js";
import type { ProbeDefinition, ProbeRow } from "./probes/types.js";
import { collectedPerConnection, type ServerGroup } from "./server-group.js";
import { ConnectError, describeError, RunTimeoutError } from "./sessions.js";
import {
  type PartitionManager,
  type RunStoreDeps,
  recordRunWithoutRows,
  storeCollectedRun,
} from "./storage.js";
import type { ConnectionRow } from "./target.js";

export interface MonitorSettings {
  probes: readonly ProbeDefinition[];
  schedule(connectionId: number, probe: ProbeDefinition): ProbeSchedule;
  /**
   * Whether a probe that may leave out the system catalogs (`systemCatalogsOptional`) lists them on
   * this connection: its probe configuration's `include_system_catalogs`.
   */
  includeSystemCatalogs(connectionId: number, probe: ProbeDefinition): boolean;
  /**
   * Delay of a first run: `slot` of `slots` evenly apart in the spread window, the whole pattern
   * shifted by a phase derived from `phaseId` (a connection id).
   */
  firstRunDelayMs(slot: number, slots: number, schedule: ProbeSchedule, phaseId: number): number;
  maxSessionsPerServer: number;
  connectTimeoutSeconds: number;
  runTimeoutSeconds: number;
  idleSessionSeconds: number;
  maxResultBytes: number;
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
  /** What the last runs of changed-rows probes stored, per connection and database. */
  changedRows?: ChangedRowsMemory;
  settings: MonitorSettings;
  /** Every monitored connection's server address (`readServerDirectory`), re-read at each sync. */
  directory: ReadonlyMap<string, ServerDirectoryEntry>;
  /** Where active session sampling (`activity_sampling`) goes; absent when this collector does not sample. */
  activity?: ActivitySampling;
  /** Where runs wait while the datastore is unavailable (see `storeCollectedRun`). */
  outage?: RunStoreDeps["outage"];
}

export interface ActivitySampling {
  store: ActivityStore;
  /** Query text kept per sample (characters); 0 keeps none. */
  queryChars: number;
}

// Only databases the role may connect to: a refused connection attempt per run helps no one.
const CONNECTABLE_DATABASES = `select datname::text as datname from pg_database
  where datallowconn and not datistemplate and has_database_privilege(datname, 'CONNECT')
  order by datname`;

/**
 * How long a probe that found nothing to read in any of its databases (`ProbeContext.absent`: spock's
 * tables where spock is not installed) is not run again: its runs store an empty result without a
 * session. Under 5 minutes, so the re-check falls on the run that meets the connection's 300 s probes
 * on their session; well under the 15 minutes spock's probes look back, so nothing logged after an
 * installation is missed.
 */
const ABSENT_RECHECK_MS = 270_000;

/**
 * Collects one connection's own probes (database probes, and server probes that read the connected
 * database), each on its own timer, on its server group's sessions; the group runs the others. While its database cannot be reached, runs are skipped with
 * exponential backoff.
 */
export class ConnectionMonitor {
  /** Failures to reach this connection's database (the group keeps the server's). */
  readonly failure: FailureBackoff;
  /** What `connections.connection_error` holds, as far as this process knows. */
  recordedError: string | null;
  private readonly timers: ProbeTimers;
  private readonly failures: ProbeFailureLog;
  /** The end of the last run queued: this connection's runs go one at a time. */
  private queue: Promise<void> = Promise.resolve();
  /** Runs queued and not done collecting, the one collecting included. */
  private queued = 0;
  /** The end of the last run's store. */
  private stored: Promise<void> = Promise.resolve();
  /** Probes that found nothing to read in any database, until when their runs skip the server. */
  private readonly absentUntil = new Map<string, number>();
  private stopped = false;

  constructor(
    readonly connection: ConnectionRow,
    readonly fingerprint: string,
    private readonly group: ServerGroup,
    private readonly deps: MonitorDeps,
  ) {
    const { settings } = deps;
    this.recordedError = connection.connection_error;
    this.failure = new FailureBackoff(settings.backoffInitialSeconds, settings.backoffMaxSeconds);
    this.failures = new ProbeFailureLog(deps.logger);
    this.timers = new ProbeTimers({
      probes: settings.probes.filter(collectedPerConnection),
      schedule: (probe) => settings.schedule(connection.id, probe),
      // All in one slot, one after another: a run finds the session the previous one used in the
      // same database, instead of each probe opening its own (a server's hundred databases would
      // otherwise take turns at its few sessions probe by probe).
      firstRunDelayMs: (_probe, schedule) => settings.firstRunDelayMs(0, 1, schedule, connection.id),
      // A run's rows are stored while the next run collects, so that run finds the session the
      // previous one left (see `keepSession`) instead of a datastore write's time later; but it
      // collects only once the store before is done, so collecting never outruns the datastore.
      run: (probe) => {
        this.queued += 1;
        const collected = this.queue
          .then(() => this.collectRun(probe))
          .finally(() => {
            this.queued -= 1;
          });
        const stored = collected.then(async (store) => {
          await store();
        });
        const storedBefore = this.stored;
        this.stored = stored.catch(() => {});
        this.queue = collected.then(
          () => storedBefore,
          () => storedBefore,
        );
        return stored;
      },
    });
  }

  get id(): number {
    return this.connection.id;
  }

  get databaseName(): string {
    return this.connection.database_name;
  }

  /** Schedules the database probes, resuming each one's rhythm from its last run (epoch ms). */
  start(lastRunMs: ReadonlyMap<string, number>): void {
    this.timers.start(lastRunMs, this.deps.clock.now().getTime());
  }

  applySchedules(): void {
    this.timers.applySchedules();
  }

  /** Stops scheduling and waits for runs in progress (the group closes the sessions). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.timers.stop();
  }

  /** Collects one run; answers how to store it. */
  private async collectRun(probe: ProbeDefinition): Promise<() => Promise<unknown>> {
    const nothing = async () => {};
    const attemptAt = Date.now();
    if (this.failure.waiting(attemptAt) || this.group.waiting(attemptAt)) {
      return nothing;
    }
    const collectedAt = this.deps.clock.now();
    const store = (rows: ProbeRow[] | null) => () =>
      storeCollectedRun(this.deps, probe, [this.id], collectedAt, rows);
    if ((this.absentUntil.get(probe.name) ?? 0) > attemptAt) {
      // An empty run, as the server would give, without a session; recorded in one statement
      // unless an empty run means something to store (a snapshot, or every object gone).
      return probe.snapshot || probe.changedRows
        ? store([])
        : () => recordRunWithoutRows(this.deps, probe, this.id, collectedAt);
    }
    this.absentUntil.delete(probe.name);
    const deadline = attemptAt + this.deps.settings.runTimeoutSeconds * 1000;
    let rows: ProbeRow[] | null;
    try {
      rows = await this.collect(probe, deadline);
    } catch (error) {
      if (error instanceof ConnectError) {
        await this.group.connectFailed(this, error, attemptAt);
      } else if (!this.stopped) {
        this.failures.failed(probe, { connectionId: this.id }, error);
      }
      return nothing;
    }
    this.failures.succeeded(probe);
    await this.group.reached(this);
    return this.stopped ? nothing : store(rows);
  }

  /**
   * A server-scope probe's rows from this connection's database; a database probe's from each
   * database this connection collects (see `ServerGroup.databasesFor`).
   */
  private async collect(probe: ProbeDefinition, deadline: number): Promise<ProbeRow[] | null> {
    const { sessions } = this.group;
    // Databases where the probe found nothing to read (and so returned nothing).
    let absentIn = 0;
    const includeSystemCatalogs = this.deps.settings.includeSystemCatalogs(this.id, probe);
    const runIn = async (database: string) => {
      let absent = false;
      const rows = await sessions.withSession(
        database,
        deadline,
        (query) =>
          runProbeOn(probe, query, this.group.server, {
            includeSystemCatalogs,
            absent: () => {
              absent = true;
            },
          }),
        () => this.keepSession(database),
      );
      if (absent && (rows ?? []).length === 0) {
        absentIn += 1;
      }
      return rows;
    };
    if (probe.scope !== "database") {
      const rows = await runIn(this.databaseName);
      this.rememberAbsence(probe, absentIn, 1);
      return rows;
    }
    // Kept for the run that follows at once, in this database as a rule.
    const listed = await sessions.withSession(
      this.databaseName,
      deadline,
      (query) => query(tagged(probe, CONNECTABLE_DATABASES)),
      () => true,
    );
    const databases = this.group.databasesFor(
      this,
      listed.map((row) => String(row.datname)),
    );
    const rows: ProbeRow[] = [];
    for (const database of databases) {
      try {
        const found = await runIn(database);
        for (const row of found ?? []) {
          rows.push({ ...row, database_name: database });
        }
      } catch (error) {
        if (error instanceof RunTimeoutError) {
          throw error;
        }
        // One database that refuses us (privileges, dropped meanwhile) does not fail the others.
        this.deps.logger.debug(
          { connectionId: this.id, probe: probe.name, database, err: describeError(error) },
          "probe skipped a database",
        );
      }
    }
    this.rememberAbsence(probe, absentIn, databases.length);
    return rows;
  }

  /**
   * Whether a session in `database` just released should wait for this connection's next run: one
   * is queued, and it reads this connection's own database (which every run opens first).
   */
  private keepSession(database: string): boolean {
    return this.queued > 1 && database === this.databaseName;
  }

  /** After a run over `databases` databases, `absentIn` of which had nothing for the probe to read. */
  private rememberAbsence(probe: ProbeDefinition, absentIn: number, databases: number): void {
    if (databases > 0 && absentIn === databases) {
      this.absentUntil.set(probe.name, Date.now() + ABSENT_RECHECK_MS);
    }
  }
}
