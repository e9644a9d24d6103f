import { queryConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { SELF_CONNECTION_QUERY_REFUSED } from "../../connections/self-monitoring.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { runStatements } from "../../sql/run.js";
import { isReadOnlyStatement, parseStatements, SqlTooLongError } from "../../sql/statements.js";

export function registerQueryConnection(app: App): void {
  app.openapi(guarded(queryConnection, { connection: { param: "id", level: "read" } }), async (c) => {
    const { id } = c.req.valid("param");
    const { query, database_name, confirmed } = c.req.valid("json");
    const statements = parseOrRefuse(query);
    if (statements.length === 0) {
      throw new ApiError(400, "Query is required");
    }
    const writes = statements.filter((statement) => !isReadOnlyStatement(statement)).map((s) => s.text);
    if (writes.length > 0 && !confirmed) {
      return c.json(
        {
          requires_confirmation: true as const,
          write_statements: writes,
          confirmation_message: `This request contains ${writes.length} write statement(s) that will modify the database. Please confirm to proceed.`,
        },
        200,
      );
    }
    const access = c.get("access");
    if (writes.length > 0) {
      await access.require({ connection: { param: "id", level: "read_write" } }, id);
    }
    const { connections } = c.get("services");
    const row = await connections.get(id);
    if (!row) {
      throw new ApiError(404, "Connection not found");
    }
    if (row.isLocal) {
      throw new ApiError(403, SELF_CONNECTION_QUERY_REFUSED);
    }
    const run = await runStatements({
      connection: connections.clientOptions(row, database_name),
      sql: statements,
      mode: writes.length > 0 ? "read_write" : "read_only",
      signal: c.req.raw.signal,
    });
    // The notice is for MCP tools; on this endpoint `truncated` says that a limit cut the result.
    const results = run.results.map(({ notice: _, ...result }) => result);
    return c.json({ results, total_statements: run.total_statements }, 200);
  });
}

function parseOrRefuse(query: string) {
  try {
    return parseStatements(query);
  } catch (error) {
    if (error instanceof SqlTooLongError) {
      throw new ApiError(400, error.message);
    }
    throw error;
  }
}
