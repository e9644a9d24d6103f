import { createHash } from "node:crypto";
import { collectsDatabase, serverAddress } from "@dbmon/datastore";
import { storedOncePerServer } from "@dbmon/monitoring";
import {
  type ActivitySample,
  activitySamplingQuery,
  isActivitySampling,
  toActivitySample,
} from "./activity-sampling.js";
import { FailureBackoff } from "./backoff.js";
import type { ConnectionMonitor, MonitorDeps } from "./monitor.js";
import { ProbeFailureLog, type RunServer, runProbeOn } from "./probe-run.js";
import { type ProbeSchedule, ProbeTimers } from "./probe-timers.js";
import type { ProbeDefinition, ProbeRow } from "./probes/types.js";
import { ConnectError, describeError, ServerSessions } from "./sessions.js";
import { storeCollectedRun } from "./storage.js";
import type { ConnectionRow, ServerTarget } from "./target.js";

/**
 * Which server a connection reaches, whatever its database: connections with the same key share one
 * group. The password counts decrypted (each connection's ciphertext differs); the key is a hash so
 * that it never holds the password.
 */
export function serverKey(row: ConnectionRow, target: ServerTarget): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        row.host,
        row.hostaddr,
        row.port,
        row.username,
        target.password ?? null,
        row.sslmode,
        row.sslcert,
        row.sslkey,
        row.sslrootcert,
        row.is_local,
      ]),
    )
    .digest("hex");
}

/** Probes each connection runs for itself; the others run once per server (`storedOncePerServer`). */
export function collectedPerConnection(probe: ProbeDefinition): boolean {
  return !storedOncePerServer(probe);
}

/**
 * The connections this collector holds on one monitored server. They share the server's sessions
 * (at most `maxSessionsPerServer` over all of them), and server-wide probes (server and host scope,
 * but those that read the connected database) run once per server and are stored once, under the
 * server's representative (the lowest-id monitored connection at its address), which every reader
 * reaches through `dbmon_server_connection`. Only the group holding the representative runs them: of
 * two groups at one address (other credentials), or a group whose representative another collector
 * holds, the others leave the server to it. Database probes stay with each member
 * (`ConnectionMonitor`), each collecting the databases `collectsDatabase` gives it, so a server with a
 * hundred registered databases is not collected a hundred times over.
 *
 * A server-wide probe runs as often as the member of the group wanting it most often; a member that
 * disables it still reads the server's rows, which are the server's, not its own.
 */
export class ServerGroup {
  readonly sessions: ServerSessions;
  private readonly members = new Map<number, ConnectionMonitor>();
  private readonly failure: FailureBackoff;
  private readonly timers: ProbeTimers;
  private readonly failures: ProbeFailureLog;
  private readonly probes: readonly ProbeDefinition[];
  /** The server's last stored run of each server-wide probe (clock ms), by any collector. */
  private readonly lastStored = new Map<string, number>();
  /** The end of each probe's last run queued (`runInTurn`). */
  private readonly turns = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly target: ServerTarget,
    private readonly deps: MonitorDeps,
  ) {
    const { settings } = deps;
    this.sessions = new ServerSessions(target, {
      maxSessions: settings.maxSessionsPerServer,
      connectTimeoutSeconds: settings.connectTimeoutSeconds,
      statementTimeoutMs: settings.runTimeoutSeconds * 1000,
      idleSessionMs: settings.idleSessionSeconds * 1000,
      maxResultBytes: settings.maxResultBytes,
    });
    this.failure = new FailureBackoff(settings.backoffInitialSeconds, settings.backoffMaxSeconds);
    this.failures = new ProbeFailureLog(deps.logger);
    this.probes = settings.probes.filter((probe) => !collectedPerConnection(probe));
    this.timers = new ProbeTimers({
      probes: this.probes,
      schedule: (probe) => this.schedule(probe),
      firstRunDelayMs: (probe, schedule) => this.firstRunDelayMs(probe, schedule, this.home()?.id ?? 0),
      run: (probe) => this.runInTurn(probe),
    });
  }

  get server(): RunServer {
    return { serverVersionNum: this.sessions.serverVersionNum, isLocalHost: this.target.isLocalHost };
  }

  get size(): number {
    return this.members.size;
  }

  /**
   * Adds a connection with its last runs (epoch ms, by any collector): the server's runs are the
   * representative's, so the group resumes from them. A connection joining a group already
   * collecting needs no run of its own: it reads the server's rows stored so far.
   */
  add(member: ConnectionMonitor, lastRunMs: ReadonlyMap<string, number>): void {
    this.members.set(member.id, member);
    for (const probe of this.probes) {
      const at = lastRunMs.get(probe.name);
      if (at !== undefined && at > (this.lastStored.get(probe.name) ?? Number.NEGATIVE_INFINITY)) {
        this.lastStored.set(probe.name, at);
      }
    }
  }

  /** Stops collecting a connection; the group's sessions stay for the others. */
  async remove(id: number): Promise<void> {
    const member = this.members.get(id);
    this.members.delete(id);
    await member?.stop();
  }

  /** Schedules the server-wide probes, resuming from the server's last runs. */
  start(): void {
    this.timers.start(this.lastStored, this.deps.clock.now().getTime());
  }

  applySchedules(): void {
    this.timers.applySchedules();
    for (const member of this.members.values()) {
      member.applySchedules();
    }
  }

  /** Stops every member and the server-wide probes, waits for runs in progress, closes the sessions. */
  async stop(): Promise<void> {
    this.stopped = true;
    const stopping = [this.timers.stop(), ...[...this.members.values()].map((member) => member.stop())];
    this.members.clear();
    await this.sessions.close();
    await Promise.allSettled(stopping);
  }

  /** Server-wide probes are spread apart over the first-run window. */
  private firstRunDelayMs(probe: ProbeDefinition, schedule: ProbeSchedule, phaseId: number): number {
    return this.deps.settings.firstRunDelayMs(
      this.probes.indexOf(probe),
      this.probes.length,
      schedule,
      phaseId,
    );
  }

  /** The server is known unreachable and its retry time has not come. */
  waiting(now: number): boolean {
    return this.failure.waiting(now);
  }

  /** The databases of the server that `member` collects its database probes in (`collectsDatabase`). */
  databasesFor(member: ConnectionMonitor, databases: readonly string[]): string[] {
    const entry = this.deps.directory.get(serverAddress(member.connection));
    return databases.filter((database) => collectsDatabase(entry, member.connection, database));
  }

  /**
   * A connection attempt failed: a failure of one database (it does not exist, it is refused) is the
   * member's, anything else the whole server's; both back off and are recorded on the connections.
   */
  async connectFailed(member: ConnectionMonitor, error: ConnectError, attemptAt: number): Promise<void> {
    if (this.stopped) {
      return;
    }
    const message = `connection error: ${error.message}`;
    const backoff = error.databaseSpecific ? member.failure : this.failure;
    const delaySeconds = backoff.failed(attemptAt, message);
    if (delaySeconds !== null) {
      this.deps.logger.debug(
        { connectionId: member.id, failures: backoff.failures, retryInSeconds: delaySeconds },
        "connection attempt failed",
      );
    }
    await this.recordErrors();
  }

  /** A run reached `member`'s database: the server and that database are fine again. */
  async reached(member: ConnectionMonitor): Promise<void> {
    this.failure.succeeded();
    member.failure.succeeded();
    await this.recordErrors();
  }

  /** Brings each member's `connection_error` in line with its failures, one UPDATE per distinct message. */
  private async recordErrors(): Promise<void> {
    const changes = new Map<string | null, ConnectionMonitor[]>();
    for (const member of this.members.values()) {
      const message = member.failure.message ?? this.failure.message;
      const wanted = message === null ? null : this.redact(message);
      if (wanted !== member.recordedError) {
        member.recordedError = wanted;
        changes.set(wanted, [...(changes.get(wanted) ?? []), member]);
      }
    }
    for (const [message, members] of changes) {
      const ids = members.map((member) => member.id);
      if (message === null) {
        this.deps.logger.info({ connectionIds: ids }, "monitored server reachable again");
      } else {
        this.deps.logger.warn({ connectionIds: ids, error: message }, "monitored server unreachable");
      }
      try {
        await this.deps.sql`
          update connections set connection_error = ${message}
          where id = any(${ids}::int[]) and connection_error is distinct from ${message}`;
      } catch (error) {
        this.deps.logger.error(
          { connectionIds: ids, err: describeError(error) },
          "recording the connection state failed",
        );
      }
    }
  }

  /** Driver messages do not carry the password, but make sure no error text ever does. */
  private redact(message: string): string {
    const password = this.target.password;
    return password ? message.replaceAll(password, "********") : message;
  }

  /** The member whose database server-wide probes run in: the lowest id whose database answers. */
  private home(): ConnectionMonitor | undefined {
    const members = [...this.members.values()].sort((a, b) => a.id - b.id);
    return members.find((member) => member.failure.message === null) ?? members[0];
  }

  /**
   * Whether this group holds its server's representative (`firstConnectionId` of the server
   * directory): only that group runs the server-wide probes. The store decides again in the
   * datastore (`storeServerWideRun`), so a directory a moment old stores nothing twice.
   */
  private representsServer(): boolean {
    const [first] = this.members.values();
    const entry = first && this.deps.directory.get(serverAddress(first.connection));
    return entry === undefined || this.members.has(entry.firstConnectionId);
  }

  /** Runs when any member wants it, as often as the member wanting it most often. */
  private schedule(probe: ProbeDefinition): ProbeSchedule {
    let intervalSeconds = Number.POSITIVE_INFINITY;
    for (const id of this.members.keys()) {
      const wanted = this.deps.settings.schedule(id, probe);
      if (wanted.enabled) {
        intervalSeconds = Math.min(intervalSeconds, wanted.intervalSeconds);
      }
    }
    return Number.isFinite(intervalSeconds)
      ? { enabled: true, intervalSeconds }
      : { enabled: false, intervalSeconds: probe.intervalSeconds };
  }

  /** Runs of one probe go one after another. */
  private runInTurn(probe: ProbeDefinition): Promise<void> {
    const run = (this.turns.get(probe.name) ?? Promise.resolve()).then(() =>
      isActivitySampling(probe) ? this.sampleActivity(probe) : this.runProbe(probe),
    );
    this.turns.set(
      probe.name,
      run.catch(() => {}),
    );
    return run;
  }

  private async runProbe(probe: ProbeDefinition): Promise<void> {
    const attemptAt = Date.now();
    const home = this.home();
    const collectedAt = this.deps.clock.now();
    if (!home || this.failure.waiting(attemptAt) || !this.representsServer()) {
      return;
    }
    const deadline = attemptAt + this.deps.settings.runTimeoutSeconds * 1000;
    let rows: ProbeRow[] | null;
    try {
      rows = await this.sessions.withSession(home.databaseName, deadline, (query) =>
        runProbeOn(probe, query, this.server),
      );
    } catch (error) {
      if (error instanceof ConnectError) {
        await this.connectFailed(home, error, attemptAt);
      } else if (!this.stopped) {
        this.failures.failed(
          probe,
          { connectionId: home.id, connectionIds: [...this.members.keys()] },
          error,
        );
      }
      return;
    }
    this.failures.succeeded(probe);
    await this.reached(home);
    if (this.stopped) {
      return;
    }
    await storeCollectedRun(this.deps, probe, [...this.members.keys()], collectedAt, rows, {
      serverWide: true,
    });
  }

  /**
   * One sampling tick of the server's sessions (`activitySamplingQuery`), handed to the collector's
   * ActivityStore: each sample under the member that collects its database (`collectsDatabase`, a
   * session outside any database counting as one of an unregistered database), and a tick for every
   * member with sampling enabled. Samples no member here collects are another collector's (or of a
   * connection with sampling off) and are dropped.
   */
  private async sampleActivity(probe: ProbeDefinition): Promise<void> {
    const activity = this.deps.activity;
    const attemptAt = Date.now();
    const home = this.home();
    const ids = [...this.members.keys()]
      .filter((id) => this.deps.settings.schedule(id, probe).enabled)
      .sort((a, b) => a - b);
    if (!activity || !home || this.failure.waiting(attemptAt) || ids.length === 0) {
      return;
    }
    const sampledAt = this.deps.clock.now();
    const deadline = attemptAt + this.deps.settings.runTimeoutSeconds * 1000;
    let rows: ProbeRow[];
    try {
      rows = await this.sessions.withSession(home.databaseName, deadline, (query) =>
        query(activitySamplingQuery(this.sessions.serverVersionNum, activity.queryChars)),
      );
    } catch (error) {
      if (error instanceof ConnectError) {
        await this.connectFailed(home, error, attemptAt);
      } else if (!this.stopped) {
        this.failures.failed(probe, { connectionId: home.id, connectionIds: ids }, error);
      }
      return;
    }
    this.failures.succeeded(probe);
    await this.reached(home);
    if (this.stopped) {
      return;
    }
    const members = ids.flatMap((id) => this.members.get(id) ?? []);
    const byConnection = new Map<number, ActivitySample[]>();
    for (const sample of rows.map(toActivitySample)) {
      const database = sample.database_name ?? "";
      const owner = members.find((member) =>
        collectsDatabase(
          this.deps.directory.get(serverAddress(member.connection)),
          member.connection,
          database,
        ),
      );
      if (owner) {
        const list = byConnection.get(owner.id) ?? [];
        list.push(sample);
        byConnection.set(owner.id, list);
      }
    }
    activity.store.record(sampledAt, byConnection, ids);
  }
}
