import postgres from "postgres";
import { isReadOnlyStatement } from "./sql-statements.js";

/** At most this many rows come back per statement; `truncated` says when there were more. */
export const MAX_ROWS = 500;
const STATEMENT_TIMEOUT_MS = 30_000;

export interface StatementResult {
  query: string;
  columns: string[];
  rows: (string | null)[][];
  row_count: number;
  truncated: boolean;
  error?: string;
}

export interface QueryRun {
  results: StatementResult[];
  total_statements: number;
}

/**
 * Runs statements on a monitored server in one transaction: READ ONLY unless `allowWrites`.
 * Execution stops at the first error and the transaction is rolled back, so a failed batch
 * changes nothing.
 */
export async function runStatements(
  options: postgres.Options<Record<string, never>>,
  statements: string[],
  allowWrites: boolean,
): Promise<QueryRun> {
  const sql = postgres({
    ...options,
    max: 1,
    connect_timeout: 10,
    idle_timeout: 1,
    onnotice: () => {},
    connection: { application_name: "dbmon query", statement_timeout: STATEMENT_TIMEOUT_MS },
  });
  const results: StatementResult[] = [];
  try {
    await sql
      .begin(allowWrites ? "read write" : "read only", async (tx) => {
        for (const statement of statements) {
          try {
            results.push(await runOne(tx, statement));
          } catch (error) {
            results.push({
              query: statement,
              columns: [],
              rows: [],
              row_count: 0,
              truncated: false,
              error: describe(error),
            });
            throw new RolledBack();
          }
        }
      })
      .catch((error: unknown) => {
        if (!(error instanceof RolledBack)) {
          throw error;
        }
      });
  } finally {
    await sql.end({ timeout: 1 });
  }
  return { results, total_statements: statements.length };
}

class RolledBack extends Error {}

async function runOne(tx: postgres.TransactionSql, statement: string): Promise<StatementResult> {
  const rows: (string | null)[][] = [];
  let columns: string[] = [];
  let truncated = false;
  // A portal fetch of MAX_ROWS + 1 rows: no rewriting of the statement, no unbounded result.
  for await (const batch of tx
    .unsafe(statement)
    .values()
    .cursor(MAX_ROWS + 1)) {
    columns =
      (batch as unknown as { columns?: { name: string }[] }).columns?.map((column) => column.name) ?? columns;
    for (const row of batch as unknown as unknown[][]) {
      if (rows.length === MAX_ROWS) {
        truncated = true;
        break;
      }
      rows.push(row.map(toText));
    }
    break;
  }
  return { query: statement, columns, rows, row_count: rows.length, truncated };
}

function toText(value: unknown): string | null {
  if (value === null || value === undefined) {
    return null;
  }
  if (value instanceof Date) {
    return value.toISOString();
  }
  if (Buffer.isBuffer(value)) {
    return `\\x${value.toString("hex")}`;
  }
  if (typeof value === "object") {
    return JSON.stringify(value);
  }
  return String(value);
}

/** The server's message and detail, never the connection details. */
function describe(error: unknown): string {
  if (error instanceof postgres.PostgresError) {
    return `Query error: ${error.message}${error.detail ? ` (${error.detail})` : ""}`;
  }
  return `Query error: ${error instanceof Error ? error.message : String(error)}`;
}

export { isReadOnlyStatement };
