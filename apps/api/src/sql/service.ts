import { InvalidInput } from "../errors.js";
import type { Statement } from "./classify.js";
import type { ParsedStatement, SqlParser } from "./parser.js";
import { type QueryRun, type RunStatementsOptions, runStatements } from "./run.js";
import type { SqlSessionLimiter } from "./sessions.js";

/** Who runs SQL, and on which server: what the session limits count. */
export interface SqlSessionOwner {
  userId: number;
  /** The server's identity (host and port of a monitored server, or the datastore). */
  server: string;
}

/**
 * The one way user SQL (the query endpoint, the MCP SQL tools, query_datastore) reaches a server:
 * read by PostgreSQL's parser, then run on the execution core within the session limits.
 */
export class SqlService {
  constructor(
    private readonly parser: SqlParser,
    private readonly sessions: SqlSessionLimiter,
  ) {}

  /** The statements of a text, classified (see SqlParser.parse for its refusals). */
  parse(sql: string): Promise<Statement[]> {
    return this.parser.parse(sql);
  }

  /** The statements of a text with their parse trees (for SQL dbmon reads rather than runs). */
  parseTrees(sql: string): Promise<ParsedStatement[]> {
    return this.parser.parseTrees(sql);
  }

  /** Exactly one statement, or InvalidInput. */
  async parseOne(sql: string): Promise<Statement> {
    const statements = await this.parser.parse(sql);
    const [first, ...rest] = statements;
    if (!first || rest.length > 0) {
      throw new InvalidInput("Give exactly one SQL statement");
    }
    return first;
  }

  /** Runs the statements in a session counted against the owner's and the server's limits. */
  async run(owner: SqlSessionOwner, options: RunStatementsOptions): Promise<QueryRun> {
    const release = this.sessions.acquire(owner.userId, owner.server);
    try {
      return await runStatements(options);
    } finally {
      release();
    }
  }

  close(): Promise<void> {
    return this.parser.close();
  }
}

/** The server a monitored connection's sessions count against: its host and port. */
export function monitoredServer(row: { host: string; port: number }): string {
  return `${row.host.toLowerCase()}:${row.port}`;
}
