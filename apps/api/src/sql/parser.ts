import { Worker } from "node:worker_threads";
import { InvalidInput, TooManyRequests } from "../errors.js";
import type { Classification, Statement, StatementTree } from "./classify.js";

export type { Statement, StatementTree } from "./classify.js";

/** A statement with its parse tree. */
export interface ParsedStatement {
  statement: Statement;
  tree: StatementTree;
}

/**
 * The longest SQL text accepted, in characters: the HTTP body limit is 1 MB, and other callers (MCP
 * tools) get the same bound, so no caller hands the parser or a server an unbounded text.
 */
export const MAX_SQL_LENGTH = 1_048_576;

/** What PostgreSQL's parser said of a text it could not read; nothing of it was sent anywhere. */
export class SqlSyntaxError extends InvalidInput {
  constructor(message: string, position: number | undefined) {
    super(`Syntax error: ${message}${position ? ` (at character ${position})` : ""}`);
  }
}

export interface SqlParserOptions {
  /** Parser threads at most (each parses one text at a time). */
  threads?: number;
  /** How long one text may take to parse; the thread is ended when it passes. */
  deadlineMs?: number;
  /** Texts that may wait for a thread; beyond, parse() refuses at once. */
  maxQueued?: number;
}

interface Job {
  sql: string;
  trees: boolean;
  resolve(parsed: ParsedText): void;
  reject(error: Error): void;
}

interface ParsedText {
  statements: Statement[];
  trees?: StatementTree[];
}

interface Reply {
  id: number;
  classification?: Classification;
  failure?: string;
}

/**
 * Parses user SQL with PostgreSQL's own grammar in worker threads. A text is parsed within a
 * deadline or not at all: past it the thread is terminated (PostgreSQL's lexer cannot be
 * interrupted, and is quadratic on nested comment openers), so nothing the parser could not read
 * in time is ever sent to a server, and the main thread never waits on the parser.
 */
export class SqlParser {
  private readonly threads: ParserThread[] = [];
  private readonly queue: Job[] = [];
  private readonly maxThreads: number;
  private readonly deadlineMs: number;
  private readonly maxQueued: number;
  private closed = false;

  constructor(options: SqlParserOptions = {}) {
    this.maxThreads = options.threads ?? 2;
    this.deadlineMs = options.deadlineMs ?? 3_000;
    this.maxQueued = options.maxQueued ?? 64;
  }

  /**
   * The statements of `sql`, classified. Throws InvalidInput beyond MAX_SQL_LENGTH, past the
   * deadline or on a tree that cannot be read, SqlSyntaxError where PostgreSQL's parser stops, and
   * TooManyRequests when too many texts wait.
   */
  async parse(sql: string): Promise<Statement[]> {
    return (await this.submit(sql, false)).statements;
  }

  /**
   * The statements of `sql` with their parse trees (for SQL dbmon reads rather than runs: the index
   * advisor's candidates), under the same length cap, deadline and queue as parse().
   */
  async parseTrees(sql: string): Promise<ParsedStatement[]> {
    const { statements, trees = [] } = await this.submit(sql, true);
    return statements.map((statement, at) => ({ statement, tree: trees[at] as StatementTree }));
  }

  private submit(sql: string, trees: boolean): Promise<ParsedText> {
    if (sql.length > MAX_SQL_LENGTH) {
      return Promise.reject(new InvalidInput(`Query is too long (at most ${MAX_SQL_LENGTH} characters)`));
    }
    if (this.closed) {
      return Promise.reject(new Error("the SQL parser is closed"));
    }
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(new TooManyRequests("The SQL parser is busy; try again in a moment", 1));
    }
    return new Promise<ParsedText>((resolve, reject) => {
      this.queue.push({ sql, trees, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      job.reject(new Error("the SQL parser is closed"));
    }
    await Promise.all(this.threads.splice(0).map((thread) => thread.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let thread = this.threads.find((candidate) => !candidate.busy);
      if (!thread && this.threads.length < this.maxThreads) {
        thread = new ParserThread(this.deadlineMs, (ended) => {
          this.threads.splice(this.threads.indexOf(ended), 1);
          this.dispatch();
        });
        this.threads.push(thread);
      }
      if (!thread) {
        return;
      }
      const job = this.queue.shift() as Job;
      thread.run(job).finally(() => this.dispatch());
    }
  }
}

/** Where the worker's module is: beside this one in the sources (run through tsx), or in dist/. */
function workerSource(): { code: string; eval: true } | { url: URL } {
  if (import.meta.url.endsWith(".ts")) {
    // Tests and `turbo dev` run TypeScript sources: the thread registers tsx before loading them.
    const url = new URL("./parse-worker.ts", import.meta.url).href;
    return {
      eval: true,
      code: `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(url)}); });`,
    };
  }
  return { url: new URL("./sql-parse-worker.js", import.meta.url) };
}

/** One worker thread; it is ended when a parse outlives the deadline, or when it fails. */
class ParserThread {
  busy = false;
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private nextId = 1;
  private pending: { id: number; settle(reply: Reply | Error): void } | undefined;
  private ended = false;

  constructor(
    private readonly deadlineMs: number,
    private readonly onEnd: (thread: ParserThread) => void,
  ) {
    const source = workerSource();
    // A parse tree is built in this thread's heap: a cap keeps a huge one from growing the process.
    const options = { resourceLimits: { maxOldGenerationSizeMb: 512 } };
    this.worker =
      "url" in source ? new Worker(source.url, options) : new Worker(source.code, { ...options, eval: true });
    // Idle threads never keep a process alive.
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      this.worker.once("message", () => resolve());
      this.worker.once("error", reject);
    });
    this.ready.catch(() => {});
    this.worker.on("message", (reply: Reply) => {
      if (this.pending && reply.id === this.pending.id) {
        this.pending.settle(reply);
      }
    });
    this.worker.on("error", (error) => this.end(error));
    this.worker.on("exit", () => this.end(new Error("the SQL parser thread stopped")));
  }

  async run(job: Job): Promise<void> {
    this.busy = true;
    try {
      await this.ready;
      job.resolve(toParsedText(await this.request(job.sql, job.trees)));
    } catch (error) {
      job.reject(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.busy = false;
    }
  }

  private request(sql: string, trees: boolean): Promise<Reply> {
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = undefined;
        void this.terminate();
        reject(
          new InvalidInput(
            `The SQL could not be parsed within ${this.deadlineMs / 1000} s; nothing was sent to the server`,
          ),
        );
      }, this.deadlineMs);
      this.pending = {
        id,
        settle: (reply) => {
          clearTimeout(timer);
          this.pending = undefined;
          if (reply instanceof Error) {
            reject(new InvalidInput(`The SQL could not be parsed: ${reply.message}`));
          } else {
            resolve(reply);
          }
        },
      };
      this.worker.postMessage({ id, sql, trees });
    });
  }

  terminate(): Promise<unknown> {
    this.end(new Error("the SQL parser thread was ended"));
    return this.worker.terminate();
  }

  private end(error: Error): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    this.pending?.settle(error);
    this.onEnd(this);
  }
}

function toParsedText(reply: Reply): ParsedText {
  if (reply.failure !== undefined || !reply.classification) {
    throw new InvalidInput(`The SQL could not be parsed: ${reply.failure ?? "no answer"}`);
  }
  if (!reply.classification.ok) {
    const { message, position } = reply.classification.syntaxError;
    throw new SqlSyntaxError(message, position);
  }
  const { statements, trees } = reply.classification;
  return trees ? { statements, trees } : { statements };
}
