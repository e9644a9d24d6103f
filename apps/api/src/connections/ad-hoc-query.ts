import type { RequestAccess } from "../auth/access.js";
import { Forbidden, InvalidInput } from "../errors.js";
import type { Statement } from "../sql/classify.js";
import { SqlSyntaxError } from "../sql/parser.js";
import { monitoredServer, type SqlService } from "../sql/service.js";
import { SELF_CONNECTION_QUERY_REFUSED } from "./self-monitoring.js";
import type { ConnectionStore } from "./store.js";

export interface AdHocQuery {
  query: string;
  database_name?: string | undefined;
  confirmed?: boolean | undefined;
}

/**
 * POST /connections/{id}/query: the statements, as PostgreSQL's parser reads them, run on the
 * execution core: read-only when every one is a read (the parser's allow-list), otherwise only with
 * the caller's confirmation and read-write access to the connection. The MCP tool query_database
 * runs through here too, with its own row limit.
 */
export async function runAdHocQuery(
  services: { connections: ConnectionStore; sql: SqlService },
  access: RequestAccess,
  id: number,
  body: AdHocQuery,
  signal: AbortSignal,
  limits: { maxRows?: number } = {},
) {
  let statements: Statement[];
  try {
    statements = await services.sql.parse(body.query);
  } catch (error) {
    if (error instanceof SqlSyntaxError) {
      // As the server would have answered it; nothing was sent.
      return syntaxErrorAnswer(body.query, error);
    }
    throw error;
  }
  if (statements.length === 0) {
    throw new InvalidInput("Query is required");
  }
  const refused = statements.find((statement) => statement.refused);
  if (refused) {
    throw new InvalidInput(`Refused: ${refused.refused}`);
  }
  const writes = statements.filter((statement) => statement.notRead).map((s) => s.text);
  if (writes.length > 0 && !body.confirmed) {
    return {
      requires_confirmation: true as const,
      write_statements: writes,
      confirmation_message: `This request contains ${writes.length} write statement(s) that will modify the database. Please confirm to proceed.`,
    };
  }
  if (writes.length > 0) {
    // The operation's rule asks for read access; the statements decide whether read-write access
    // is needed as well, so the access module is asked again.
    await access.require({ connection: { param: "id", level: "read_write" } }, id);
  }
  const row = await services.connections.require(id);
  if (row.isLocal) {
    throw new Forbidden(SELF_CONNECTION_QUERY_REFUSED);
  }
  const caller = await access.requireCaller();
  const run = await services.sql.run(
    { userId: caller.userId, server: monitoredServer(row) },
    {
      connection: await services.connections.clientOptions(row, body.database_name),
      statements,
      mode: writes.length > 0 ? "read_write" : "read_only",
      signal,
      ...limits,
    },
  );
  // The notice is for MCP tools; on this endpoint `truncated` says that a limit cut the result.
  const results = run.results.map(({ notice: _, ...result }) => result);
  return { results, total_statements: run.total_statements };
}

function syntaxErrorAnswer(query: string, error: SqlSyntaxError) {
  return {
    results: [
      {
        query: query.trim(),
        columns: [],
        rows: [],
        row_count: 0,
        truncated: false,
        error: `Query error: ${error.message}`,
      },
    ],
    total_statements: 1,
  };
}
