import { queryConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { runStatements } from "../../connections/query-runner.js";
import { isReadOnlyStatement, splitStatements } from "../../connections/sql-statements.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerQueryConnection(app: App): void {
  app.openapi(guarded(queryConnection, { connection: { param: "id", level: "read" } }), async (c) => {
    const { id } = c.req.valid("param");
    const { query, database_name, confirmed } = c.req.valid("json");
    const statements = splitStatements(query);
    if (statements.length === 0) {
      throw new ApiError(400, "Query is required");
    }
    const writes = statements.filter((statement) => !isReadOnlyStatement(statement));
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
    const run = await runStatements(
      connections.clientOptions(row, database_name),
      statements,
      writes.length > 0,
    );
    return c.json(run, 200);
  });
}
