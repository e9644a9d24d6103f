import type { RequestAccess } from "../auth/access.js";
import { Forbidden, InvalidInput } from "../errors.js";
import { runStatements } from "../sql/run.js";
import { isReadOnlyStatement, parseStatements, SqlTooLongError } from "../sql/statements.js";
import { SELF_CONNECTION_QUERY_REFUSED } from "./self-monitoring.js";
import type { ConnectionStore } from "./store.js";

export interface AdHocQuery {
  query: string;
  database_name?: string | undefined;
  confirmed?: boolean | undefined;
}

/**
 * POST /connections/{id}/query: the statements run on the execution core, read-only unless the body
 * holds writes, which need the caller's confirmation and read-write access to the connection.
 * The MCP tool query_database runs through here too, with its own row limit.
 */
export async function runAdHocQuery(
  connections: ConnectionStore,
  access: RequestAccess,
  id: number,
  body: AdHocQuery,
  signal: AbortSignal,
  limits: { maxRows?: number } = {},
) {
  const statements = parseOrRefuse(body.query);
  if (statements.length === 0) {
    throw new InvalidInput("Query is required");
  }
  const writes = statements.filter((statement) => !isReadOnlyStatement(statement)).map((s) => s.text);
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
  const row = await connections.require(id);
  if (row.isLocal) {
    throw new Forbidden(SELF_CONNECTION_QUERY_REFUSED);
  }
  const run = await runStatements({
    connection: await connections.clientOptions(row, body.database_name),
    sql: statements,
    mode: writes.length > 0 ? "read_write" : "read_only",
    signal,
    ...limits,
  });
  // The notice is for MCP tools; on this endpoint `truncated` says that a limit cut the result.
  const results = run.results.map(({ notice: _, ...result }) => result);
  return { results, total_statements: run.total_statements };
}

function parseOrRefuse(query: string) {
  try {
    return parseStatements(query);
  } catch (error) {
    if (error instanceof SqlTooLongError) {
      throw new InvalidInput(error.message);
    }
    throw error;
  }
}
