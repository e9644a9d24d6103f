import { monitoredServerSession, ReceiveBudget } from "@dbmon/monitoring";
import postgres from "postgres";
import { InvalidInput } from "../errors.js";
import type { Statement } from "./classify.js";
import { type RowLimits, toLimitedRow } from "./rows.js";

export type RunMode = "read_only" | "read_write";

export interface RunStatementsOptions {
  /** Driver options for the target (ConnectionStore.clientOptions); never logged. */
  connection: postgres.Options<Record<string, never>>;
  /** The statements, as PostgreSQL's parser read them (SqlParser.parse). */
  statements: Statement[];
  /** read_only: one READ ONLY transaction, only reads (the parser's allow-list). */
  mode: RunMode;
  /** Wall-clock limit of the whole run; the running statement is cancelled when it passes. */
  deadlineMs?: number;
  /** Rows kept per statement. */
  maxRows?: number;
  /** Bytes (UTF-8) kept of one value; longer values are cut. */
  maxCellBytes?: number;
  /** Bytes of values kept over the whole run; rows beyond are dropped. */
  maxResultBytes?: number;
  /** Aborting it cancels the running statement, as the deadline does. */
  signal?: AbortSignal;
}

/** One statement's outcome: the wire shape of POST /connections/{id}/query, plus a notice. */
export interface StatementResult {
  query: string;
  columns: string[];
  rows: (string | null)[][];
  row_count: number;
  /** Rows were dropped or values cut by a limit. */
  truncated: boolean;
  error?: string;
  /** Which limit cut the result, in words (for MCP tools and logs; not on the REST wire). */
  notice?: string;
}

export interface QueryRun {
  results: StatementResult[];
  total_statements: number;
}

export const DEFAULT_LIMITS = {
  deadlineMs: 30_000,
  maxRows: 500,
  maxCellBytes: 256 * 1024,
  maxResultBytes: 8 * 1024 * 1024,
} as const;

/** Rows fetched per round trip: small, so the result-size limit can stop between batches. */
const BATCH_ROWS = 50;
/** Room for protocol framing on top of the values of one batch. */
const FRAMING_BYTES = 1024 * 1024;
/** After a cancel request, how long a statement gets to stop before its connection is dropped. */
const CANCEL_GRACE_MS = 2_000;

class Stopped extends Error {}

type RunLimits = RowLimits & { maxRows: number };

/**
 * Runs statements on a server in one transaction, each alone (one Parse message of the extended
 * protocol, so no statement can carry a second), stopping at the first error (the transaction is
 * then rolled back, so a failed batch changes nothing).
 *
 * Limits the statements cannot lift: the deadline is kept here, not by the server's
 * statement_timeout (which a statement could change), and enforced with a cancel request from
 * another session; received bytes are counted at the socket, so no value is ever held whole beyond
 * maxResultBytes. Refused before anything runs: what the parser refused in every mode (transaction
 * control, COPY), and in read_only mode anything but a read. A read-only run is also READ ONLY on
 * the server, its snapshot taken before the first statement (so no statement can make the
 * transaction read-write again), with pg_catalog first on the search path (so no schema can
 * shadow an allowed function).
 */
export async function runStatements(options: RunStatementsOptions): Promise<QueryRun> {
  const limits: Required<Omit<RunStatementsOptions, "connection" | "statements" | "mode" | "signal">> = {
    deadlineMs: options.deadlineMs ?? DEFAULT_LIMITS.deadlineMs,
    maxRows: options.maxRows ?? DEFAULT_LIMITS.maxRows,
    maxCellBytes: options.maxCellBytes ?? DEFAULT_LIMITS.maxCellBytes,
    maxResultBytes: options.maxResultBytes ?? DEFAULT_LIMITS.maxResultBytes,
  };
  const { statements, mode } = options;
  refuseBeforeRunning(statements, mode);
  const results: StatementResult[] = [];
  if (statements.length === 0) {
    return { results, total_statements: 0 };
  }
  const budget = new ReceiveBudget(limits.maxResultBytes + FRAMING_BYTES);
  const { connection } = options;
  const connectTimeoutMs = Math.min(10_000, limits.deadlineMs);
  const sql = postgres({
    ...connection,
    ...monitoredServerSession(connection, budget, connectTimeoutMs),
    max: 1,
    connect_timeout: Math.ceil(connectTimeoutMs / 1000),
    idle_timeout: 1,
    onnotice: () => {},
    connection: {
      application_name: "dbmon query",
      // A second line of defence; the deadline below holds even when a statement lifts these.
      statement_timeout: limits.deadlineMs,
      idle_in_transaction_session_timeout: limits.deadlineMs,
      // The parser that vets the statements reads strings this way; the server must too.
      standard_conforming_strings: "on",
    } as Record<string, string | number>,
  });

  const stop = new StopControl(sql, limits.deadlineMs, options.signal);
  const rowLimits: RunLimits = { ...limits, spentBytes: 0 };
  try {
    await sql
      .begin(mode === "read_only" ? "read only" : "read write", async (tx) => {
        if (mode === "read_only") {
          await tx.unsafe(READ_ONLY_PROLOGUE, [], { prepare: false });
        }
        for (const statement of statements) {
          const result = await runOne(tx, statement, rowLimits, budget, stop);
          results.push(result);
          if (result.error) {
            throw new Stopped();
          }
        }
      })
      .catch((error: unknown) => {
        if (error instanceof Stopped || results.at(-1)?.error) {
          return;
        }
        // A failure outside a statement: connecting, BEGIN, or COMMIT (a deferred constraint).
        const text = statements[results.length]?.text ?? "COMMIT";
        results.push(failed(text, describe(error, stop, budget)));
      });
  } finally {
    stop.dispose();
    await sql.end({ timeout: 1 });
  }
  return { results, total_statements: statements.length };
}

/**
 * Runs first in a read-only transaction: it takes the transaction's snapshot (after which
 * PostgreSQL refuses SET TRANSACTION READ WRITE) and puts pg_catalog before every other schema.
 */
const READ_ONLY_PROLOGUE =
  "select pg_catalog.set_config('search_path', pg_catalog.rtrim(pg_catalog.concat('pg_catalog, ', pg_catalog.current_setting('search_path')), ', '), true)";

/** Throws InvalidInput naming the first statement kind or function the mode does not allow. */
function refuseBeforeRunning(statements: Statement[], mode: RunMode): void {
  for (const statement of statements) {
    if (statement.refused) {
      throw new InvalidInput(`Refused: ${statement.refused}`);
    }
    if (mode === "read_only" && statement.notRead) {
      throw new InvalidInput(
        `Refused: a read-only query may not use ${statement.notRead} (it may use SELECT, VALUES, TABLE, SHOW and EXPLAIN, with the functions of dbmon's read-only list)`,
      );
    }
  }
}

function failed(query: string, error: string): StatementResult {
  return { query, columns: [], rows: [], row_count: 0, truncated: false, error };
}

/** The deadline and the caller's abort: cancel the running statement, then drop the connection. */
class StopControl {
  reason: "deadline" | "aborted" | undefined;
  private active: { cancel(): void } | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly onAbort = () => this.stop("aborted");

  constructor(
    private readonly sql: postgres.Sql,
    readonly deadlineMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.timers.push(setTimeout(() => this.stop("deadline"), deadlineMs));
    signal?.addEventListener("abort", this.onAbort, { once: true });
    if (signal?.aborted) {
      this.reason = "aborted";
    }
  }

  track(query: { cancel(): void } | undefined): void {
    this.active = query;
  }

  private stop(reason: "deadline" | "aborted"): void {
    if (this.reason) {
      return;
    }
    this.reason = reason;
    // A CancelRequest goes over a new connection with the session's key: it reaches the backend
    // whatever the statement set, and stops only the statement, not other sessions.
    this.active?.cancel();
    this.timers.push(setTimeout(() => void this.sql.end({ timeout: 0 }), CANCEL_GRACE_MS));
  }

  dispose(): void {
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    this.signal?.removeEventListener("abort", this.onAbort);
  }
}

async function runOne(
  tx: postgres.TransactionSql,
  statement: Statement,
  limits: RunLimits,
  budget: ReceiveBudget,
  stop: StopControl,
): Promise<StatementResult> {
  const result: StatementResult = {
    query: statement.text,
    columns: [],
    rows: [],
    row_count: 0,
    truncated: false,
  };
  if (stop.reason) {
    return { ...result, error: describe(undefined, stop, budget) };
  }
  const notices = new Set<string>();
  // Never the simple protocol: one statement per Parse message, whatever the text holds. (postgres.js
  // reads `simple` in unsafe(), defaulting to the simple protocol without parameters; its types omit it.)
  const extendedProtocol = { prepare: false, simple: false } as postgres.UnsafeQueryOptions;
  const query = tx.unsafe(statement.text, [], extendedProtocol).values();
  stop.track(query);
  budget.reset();
  try {
    for await (const batch of statement.wholeResult ? [await query] : query.cursor(BATCH_ROWS)) {
      const columns = (batch as unknown as { columns?: { name: string }[] }).columns;
      result.columns = columns?.map((column) => column.name) ?? result.columns;
      const full = addRows(result, batch as unknown as unknown[][], limits, notices);
      budget.reset();
      if (full) {
        break;
      }
    }
  } catch (error) {
    result.error = describe(error, stop, budget);
    if (budget.exceeded) {
      result.truncated = true;
      notices.add(`the server sent more than ${budget.limit} bytes for one batch of rows`);
    }
  } finally {
    stop.track(undefined);
  }
  result.row_count = result.rows.length;
  if (notices.size > 0) {
    result.notice = `Result truncated: ${[...notices].join("; ")}`;
  }
  return result;
}

/** Adds rows within the limits; true when the statement's result is full. */
function addRows(
  result: StatementResult,
  batch: unknown[][],
  limits: RunLimits,
  notices: Set<string>,
): boolean {
  for (const values of batch) {
    if (result.rows.length >= limits.maxRows) {
      result.truncated = true;
      notices.add(`only the first ${limits.maxRows} rows are shown`);
      return true;
    }
    const row = toLimitedRow(values, limits);
    if (!row) {
      result.truncated = true;
      notices.add(`the values shown reached ${limits.maxResultBytes} bytes`);
      return true;
    }
    if (row.cut) {
      result.truncated = true;
      notices.add(`values longer than ${limits.maxCellBytes} bytes are cut`);
    }
    result.rows.push(row.cells);
  }
  return false;
}

/** The server's message and detail, never the connection details; our own stops in words. */
function describe(error: unknown, stop: StopControl, budget: ReceiveBudget): string {
  if (stop.reason === "deadline") {
    return `Query error: stopped after the ${stop.deadlineMs / 1000} s time limit`;
  }
  if (stop.reason === "aborted") {
    return "Query error: stopped because the request was cancelled";
  }
  if (budget.exceeded) {
    return `Query error: the result is too large (more than ${budget.limit} bytes in one batch of ${BATCH_ROWS} rows); select fewer or shorter values`;
  }
  if (error instanceof postgres.PostgresError) {
    return `Query error: ${error.message}${error.detail ? ` (${error.detail})` : ""}`;
  }
  return `Query error: ${error instanceof Error ? error.message : String(error)}`;
}
