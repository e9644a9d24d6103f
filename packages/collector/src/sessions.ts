import { monitoredServerSession, ReceiveBudget } from "@dbmon/monitoring";
import postgres from "postgres";
import type { ProbeRow } from "./probes/types.js";
import type { ServerTarget } from "./target.js";

/** The monitored server cannot be reached or refuses us; recorded on the connection. */
export class ConnectError extends Error {
  override name = "ConnectError";

  constructor(
    message: string,
    /** The driver's code or SQLSTATE, when it gave one. */
    readonly code?: string,
  ) {
    super(message);
  }

  /**
   * The failure concerns the database connected to rather than the whole server: it does not exist
   * (3D000), or pg_hba.conf or the role's privileges refuse that database (28000).
   */
  get databaseSpecific(): boolean {
    return this.code === "3D000" || this.code === "28000";
  }
}

/** The run used up its time limit. */
export class RunTimeoutError extends Error {
  override name = "RunTimeoutError";
}

/** A query's answer outgrew what one query may receive: the session was cut, the server is fine. */
export class ResultTooLargeError extends Error {
  override name = "ResultTooLargeError";
}

export const COLLECTOR_APPLICATION_NAME = "dbmon collector";

// Network errors of the driver, and SQLSTATE classes 08 (connection exception), 28 (invalid
// authorization), 3D (no such database), 57P01-57P03 (shutdown, cannot connect now).
const CONNECTION_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01",
  "57P02",
  "57P03",
  "3D000",
]);

/** SQLSTATE of a statement ended by statement_timeout (or a cancel request). */
const QUERY_CANCELED = "57014";

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export function isConnectionFailure(error: unknown): boolean {
  const code = errorCode(error);
  if (code === undefined) {
    return false;
  }
  return CONNECTION_ERROR_CODES.has(code) || code.startsWith("08") || code.startsWith("28");
}

export interface SessionLimits {
  /** At most this many sessions are open on the server at once, over all its databases. */
  maxSessions: number;
  connectTimeoutSeconds: number;
  /** statement_timeout of every session. */
  statementTimeoutMs: number;
  /** A session unused this long is closed (sessions cost memory here and on the server). */
  idleSessionMs: number;
  /**
   * The most one query may receive, counted at the socket: the driver holds a message whole before
   * any code of ours sees it, so a huge value would be in memory (twice) before a row limit could act.
   */
  maxResultBytes: number;
}

interface Session {
  database: string;
  sql: postgres.Sql;
  budget: ReceiveBudget;
  busy: boolean;
  broken: boolean;
  lastUsedAt: number;
  /** Until then (epoch ms) an idle session is kept for its database: another run there is coming. */
  keptUntil: number;
}

export type QueryFn = (text: string) => Promise<ProbeRow[]>;

/**
 * How long a released session waits for its database's next run before a run elsewhere may close
 * it. That run is already queued (a connection's probes run back to back) and asks as soon as the
 * store before the last one is done, usually within milliseconds; the bound keeps a slow datastore
 * (or a next run that needs no session) from holding one of the server's few sessions idle.
 */
const KEEP_FOR_NEXT_RUN_MS = 1000;

/**
 * The sessions of one monitored server: one PostgreSQL session per driver instance, reused per
 * database, never more than `maxSessions` open; a run waits for a free one until its deadline.
 */
export class ServerSessions {
  private readonly sessions: Session[] = [];
  /** Sessions being opened: they count against the limit before they exist. */
  private opening = 0;
  /** Sessions being closed: they count until the server has let them go. */
  private closing = 0;
  private readonly waiters = new Set<() => void>();
  private closed = false;
  private readonly idleTimer: NodeJS.Timeout;
  /** `server_version_num`, known after the first session opened. */
  serverVersionNum = 0;

  constructor(
    private readonly target: ServerTarget,
    private readonly limits: SessionLimits,
  ) {
    this.idleTimer = setInterval(() => this.closeIdle(), Math.max(1000, limits.idleSessionMs / 2));
    this.idleTimer.unref();
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.limits.idleSessionMs;
    for (const session of this.sessions.filter(
      (candidate) => !candidate.busy && candidate.lastUsedAt < cutoff,
    )) {
      this.discard(session);
    }
  }

  /**
   * Runs `work` on a session in `database`; the queries it makes end at `deadline` (epoch ms). When
   * `keep` answers true at the end, another run in that database is about to ask: the session is not
   * closed for a run elsewhere for a moment (`KEEP_FOR_NEXT_RUN_MS`), as the server would otherwise
   * start a new backend for the very next run.
   */
  async withSession<T>(
    database: string,
    deadline: number,
    work: (query: QueryFn) => Promise<T>,
    keep: () => boolean = () => false,
  ): Promise<T> {
    const session = await this.acquire(database, deadline);
    try {
      return await work((text) => this.query(session, text, deadline));
    } finally {
      session.busy = false;
      session.lastUsedAt = Date.now();
      session.keptUntil = keep() ? session.lastUsedAt + KEEP_FOR_NEXT_RUN_MS : 0;
      if (session.broken) {
        this.discard(session);
      }
      this.wakeOne();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.idleTimer);
    const ending = this.sessions.splice(0).map((session) => session.sql.end({ timeout: 1 }));
    for (const wake of this.waiters) {
      wake();
    }
    await Promise.allSettled(ending);
  }

  private async acquire(database: string, deadline: number): Promise<Session> {
    for (;;) {
      if (this.closed) {
        throw new RunTimeoutError("the collector stopped monitoring this connection");
      }
      const idle = this.sessions.find((session) => !session.busy && session.database === database);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (this.sessions.length + this.opening + this.closing < this.limits.maxSessions) {
        return this.open(database, deadline);
      }
      const now = Date.now();
      const idleElsewhere = this.sessions.filter((session) => !session.busy);
      // The least recently used of those not kept for their database's next run.
      const other = idleElsewhere
        .filter((session) => session.keptUntil <= now)
        .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
      if (other) {
        this.discard(other);
        continue;
      }
      // Infinite when no idle session is kept: then only a release wakes the wait.
      await this.waitForRelease(deadline, Math.min(...idleElsewhere.map((session) => session.keptUntil)));
    }
  }

  private async open(database: string, deadline: number): Promise<Session> {
    let host: string | undefined;
    // The slot is taken before the first await, so concurrent acquires cannot overshoot the limit.
    this.opening += 1;
    try {
      // Resolved and vetted at every connect, so DNS changes are followed and rebinding is not.
      host = await this.target.address();
    } catch (error) {
      this.wakeOne();
      throw new ConnectError(describeError(error));
    } finally {
      this.opening -= 1;
    }
    const budget = new ReceiveBudget(this.limits.maxResultBytes);
    const destination = { host, path: this.target.path, port: this.target.port, ssl: this.target.ssl };
    const sql = postgres({
      ...destination,
      ...monitoredServerSession(destination, budget, this.limits.connectTimeoutSeconds * 1000),
      user: this.target.username,
      password: this.target.password,
      database,
      max: 1,
      prepare: false,
      connect_timeout: this.limits.connectTimeoutSeconds,
      onnotice: () => {},
      connection: {
        application_name: COLLECTOR_APPLICATION_NAME,
        statement_timeout: this.limits.statementTimeoutMs,
      },
    });
    const session: Session = {
      database,
      sql,
      budget,
      busy: true,
      broken: false,
      lastUsedAt: Date.now(),
      keptUntil: 0,
    };
    this.sessions.push(session);
    try {
      const rows = await this.query(
        session,
        "select current_setting('server_version_num')::int as version",
        deadline,
      );
      this.serverVersionNum = Number(rows[0]?.version ?? 0);
      return session;
    } catch (error) {
      this.discard(session);
      this.wakeOne();
      throw error instanceof RunTimeoutError || error instanceof ConnectError
        ? error
        : new ConnectError(describeError(error), errorCode(error));
    }
  }

  private async query(session: Session, text: string, deadline: number): Promise<ProbeRow[]> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new RunTimeoutError("probe run timed out");
    }
    session.budget.reset();
    const pending = session.sql.unsafe(text);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // The server may be unreachable, so the cancel request may never arrive: drop the session.
        session.broken = true;
        pending.cancel();
        reject(new RunTimeoutError("probe run timed out"));
      }, remaining);
    });
    try {
      return (await Promise.race([pending, timeout])) as ProbeRow[];
    } catch (error) {
      if (session.budget.exceeded) {
        session.broken = true;
        throw new ResultTooLargeError(
          `the answer exceeded ${session.budget.limit} bytes (DBMON_COLLECTOR_MAX_RESULT_MB); its session was closed`,
        );
      }
      if (isConnectionFailure(error)) {
        session.broken = true;
        throw new ConnectError(describeError(error), errorCode(error));
      }
      if ((error as { code?: unknown }).code === QUERY_CANCELED) {
        throw new RunTimeoutError("probe run timed out (statement_timeout)");
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private discard(session: Session): void {
    const index = this.sessions.indexOf(session);
    if (index >= 0) {
      this.sessions.splice(index, 1);
    }
    this.closing += 1;
    session.sql
      .end({ timeout: 0 })
      .catch(() => {})
      .finally(() => {
        this.closing -= 1;
        this.wakeOne();
      });
  }

  /** Waits for a session to be released, or until `retryAt` (a kept session's end) if sooner. */
  private waitForRelease(deadline: number, retryAt = Number.POSITIVE_INFINITY): Promise<void> {
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer =
        retryAt < deadline
          ? setTimeout(wake, Math.max(0, retryAt - Date.now()))
          : setTimeout(
              () => {
                this.waiters.delete(wake);
                reject(new RunTimeoutError("probe run timed out waiting for a session"));
              },
              Math.max(0, deadline - Date.now()),
            );
      this.waiters.add(wake);
    });
  }

  private wakeOne(): void {
    const [first] = this.waiters;
    first?.();
  }
}

/** A readable message for the connection's `connection_error`: the driver's text and code. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && !error.message.includes(code)
      ? `${error.message} (${code})`
      : error.message;
  }
  return String(error);
}
