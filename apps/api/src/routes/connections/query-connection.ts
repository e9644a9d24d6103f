import { queryConnection } from "@dbmon/contract";
import { runStatements } from "../../connections/query-runner.js";
import { isReadOnlyStatement, splitStatements } from "../../connections/sql-statements.js";
import { InvalidInput } from "../../errors.js";
import { implement } from "../../http/operations.js";

export const queryConnectionHandler = implement(queryConnection, async (c) => {
  const { id } = c.req.valid("param");
  const { query, database_name, confirmed } = c.req.valid("json");
  const statements = splitStatements(query);
  if (statements.length === 0) {
    throw new InvalidInput("Query is required");
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
  if (writes.length > 0) {
    // The operation's rule asks for read access; which statements the body holds decides whether
    // read-write access is needed as well, so the access module is asked again here.
    await c.get("access").require({ connection: { param: "id", level: "read_write" } }, id);
  }
  const { connections } = c.get("services");
  const row = await connections.require(id);
  const run = await runStatements(
    connections.clientOptions(row, database_name),
    statements,
    writes.length > 0,
  );
  return c.json(run, 200);
});
