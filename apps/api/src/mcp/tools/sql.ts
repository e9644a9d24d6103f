import { z } from "zod";
import { runAdHocQuery } from "../../connections/ad-hoc-query.js";
import { SELF_CONNECTION_QUERY_REFUSED } from "../../connections/self-monitoring.js";
import { Forbidden } from "../../errors.js";
import { SqlSyntaxError, type Statement } from "../../sql/parser.js";
import type { StatementResult } from "../../sql/run.js";
import { monitoredServer } from "../../sql/service.js";
import { pageArguments, rowIdArgument } from "../arguments.js";
import { type BoundConnection, boundConnection } from "../connection.js";
import { defineTool, failure, type ToolContext, type ToolResult, text, tsv, tsvPage } from "../tool.js";

export const connectionArgs = {
  connection_id: rowIdArgument
    .optional()
    .describe("Connection to use; defaults to the connection selected in dbmon"),
  database_name: z
    .string()
    .min(1)
    .optional()
    .describe("Database to connect to instead of the connection's default"),
};

/** Paging of query-like tools: rows returned and skipped per statement. */
export const pagingArgs = {
  limit: z.number().int().min(1).max(1000).default(100).describe("Rows returned per statement"),
  offset: z.number().int().min(0).max(100_000).default(0).describe("Rows skipped per statement"),
};

/** A statement's rows as TSV, with the notice of any limit that cut them. */
function present(result: StatementResult, offset = 0, limit = result.rows.length): string {
  const rows = result.rows.slice(offset, offset + limit);
  const more = result.rows.length > offset + limit || result.truncated;
  const lines = [tsv(result.columns, rows)];
  lines.push(
    `(${rows.length} row${rows.length === 1 ? "" : "s"}${offset > 0 ? ` from offset ${offset}` : ""}${more ? "; more rows exist: raise offset or limit" : ""})`,
  );
  if (result.notice) {
    lines.push(result.notice);
  }
  return lines.join("\n");
}

/**
 * Runs read-only SQL on the bound connection: read by PostgreSQL's parser, refused unless every
 * statement is a read, run with the execution core's limits in a session the caller's and the
 * server's limits count.
 */
export async function runRead(
  context: ToolContext,
  bound: BoundConnection,
  sql: string | Statement[],
  maxRows?: number,
): Promise<StatementResult[]> {
  if (bound.row.isLocal) {
    throw new Forbidden(SELF_CONNECTION_QUERY_REFUSED);
  }
  const statements = typeof sql === "string" ? await context.services.sql.parse(sql) : sql;
  const caller = await context.access.requireCaller();
  const run = await context.services.sql.run(
    { userId: caller.userId, server: monitoredServer(bound.row) },
    {
      connection: await context.services.connections.clientOptions(bound.row, bound.databaseName),
      statements,
      mode: "read_only",
      signal: context.signal,
      ...(maxRows ? { maxRows } : {}),
    },
  );
  return run.results;
}

function firstError(results: StatementResult[]): ToolResult | undefined {
  const failed = results.find((result) => result.error);
  return failed ? failure(failed.error as string) : undefined;
}

/** The statements' rows (from `offset`, at most `limit` each), or the first statement's error. */
export function presentRun(results: StatementResult[], offset: number, limit: number): ToolResult {
  const error = firstError(results);
  if (error) {
    return error;
  }
  const parts = results.map((result) => present(result, offset, limit));
  return text(
    parts.length === 1
      ? (parts[0] as string)
      : parts.map((part, at) => `-- statement ${at + 1}: ${results[at]?.query}\n${part}`).join("\n\n"),
  );
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string literal (the execution core's sessions keep standard_conforming_strings on). */
export function sqlLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export const queryDatabase = defineTool({
  name: "query_database",
  privilege: "query_database",
  description:
    "Run SQL on a monitored PostgreSQL database and get the rows back as TSV (a header line, then one line per row; NULL for null). Reads run in a READ ONLY transaction. Statements that change data or settings run only with read-write access to the connection and `confirmed: true`; without it the tool lists them and asks for confirmation. Use it to inspect live state (pg_stat_activity, pg_locks, table contents) that collected metrics do not cover. Limits: 30 s per call, `limit` rows per statement (default 100, at most 1000).",
  compactDescription: "Run SQL on a monitored database; returns TSV rows.",
  input: {
    query: z.string().min(1).describe("SQL to run; several statements may be separated by semicolons"),
    ...connectionArgs,
    ...pagingArgs,
    confirmed: z.boolean().default(false).describe("Set to true to run statements that write"),
  },
  async run(context, args) {
    const bound = await boundConnection(context, args);
    const outcome = await runAdHocQuery(
      context.services,
      context.access,
      bound.row.id,
      { query: args.query, database_name: bound.databaseName, confirmed: args.confirmed },
      context.signal,
      { maxRows: args.offset + args.limit + 1 },
    );
    if ("requires_confirmation" in outcome) {
      return failure(
        `${outcome.confirmation_message} Write statements:\n${(outcome.write_statements ?? []).join("\n")}\nCall query_database again with "confirmed": true once the user agreed.`,
      );
    }
    return presentRun(outcome.results as StatementResult[], args.offset, args.limit);
  },
});

export const getSchemaInfo = defineTool({
  name: "get_schema_info",
  privilege: "get_schema_info",
  description:
    "Describe the schema of a monitored database: for each table and view its columns with data types, nullability, defaults and the constraints they take part in (primary key, foreign key, unique), as TSV after the number of columns (tables with `compact`) that match. Filter by `schema_name` and `table_name` (which needs the schema); `vector_tables_only` keeps tables with pgvector columns; `compact` lists tables only; `limit` and `offset` page through them. System schemas are left out. Call it before writing SQL against tables you have not seen.",
  compactDescription: "List tables and columns of a monitored database.",
  input: {
    ...connectionArgs,
    schema_name: z.string().min(1).optional().describe("Only this schema"),
    table_name: z.string().min(1).optional().describe("Only this table (needs schema_name)"),
    vector_tables_only: z.boolean().default(false).describe("Only tables with vector columns"),
    compact: z.boolean().default(false).describe("One line per table, without columns"),
    ...pageArguments(500, 1000),
  },
  async run(context, args) {
    if (args.table_name && !args.schema_name) {
      return failure("table_name needs schema_name");
    }
    const bound = await boundConnection(context, args);
    const filters = [
      "c.table_schema not in ('pg_catalog', 'information_schema') and c.table_schema not like 'pg_toast%'",
      args.schema_name ? `c.table_schema = ${sqlLiteral(args.schema_name)}` : "",
      args.table_name ? `c.table_name = ${sqlLiteral(args.table_name)}` : "",
      args.vector_tables_only
        ? "exists (select 1 from information_schema.columns v where v.table_schema = c.table_schema and v.table_name = c.table_name and v.udt_name = 'vector')"
        : "",
    ]
      .filter(Boolean)
      .join(" and ");
    const sql = args.compact
      ? `select c.table_schema, c.table_name, t.table_type, count(*) as column_count
           from information_schema.columns c
           join information_schema.tables t using (table_schema, table_name)
          where ${filters}
          group by 1, 2, 3 order by 1, 2`
      : `select c.table_schema, c.table_name, c.column_name,
                case when c.data_type = 'USER-DEFINED' then c.udt_name else c.data_type end as data_type,
                c.is_nullable, c.column_default,
                (select string_agg(tc.constraint_type, ', ' order by tc.constraint_type)
                   from information_schema.key_column_usage k
                   join information_schema.table_constraints tc
                     on tc.constraint_schema = k.constraint_schema and tc.constraint_name = k.constraint_name
                  where k.table_schema = c.table_schema and k.table_name = c.table_name
                    and k.column_name = c.column_name) as constraints
           from information_schema.columns c
          where ${filters}
          order by c.table_schema, c.table_name, c.ordinal_position`;
    // The page and the number of all that match, both counted by the server.
    const results = await runRead(
      context,
      bound,
      `${sql} limit ${args.limit} offset ${args.offset};
       select count(*) as total from (${sql}) listed`,
      args.limit,
    );
    const error = firstError(results);
    if (error) {
      return error;
    }
    const [page, counted] = results as [StatementResult, StatementResult];
    const rows = page.rows.map((row) =>
      Object.fromEntries(page.columns.map((column, i) => [column, row[i]])),
    );
    const listing = tsvPage(
      Number(counted.rows[0]?.[0] ?? 0),
      args.compact ? "table" : "column",
      rows,
      "No tables found",
    );
    return text(page.notice ? `${listing}\n${page.notice}` : listing);
  },
});

/**
 * The one statement a planning tool takes, if EXPLAIN (without ANALYZE) can plan it without running
 * anything; otherwise the tool's refusal.
 */
async function plannableStatement(
  context: ToolContext,
  tool: string,
  query: string,
): Promise<{ text: string } | { refusal: ToolResult }> {
  const statement = await context.services.sql.parseOne(query);
  if (statement.command === "EXPLAIN") {
    return { refusal: failure(`${tool} takes the statement itself, without EXPLAIN`) };
  }
  if (statement.notPlannable) {
    return { refusal: failure(`${tool} cannot plan ${statement.notPlannable}`) };
  }
  return { text: statement.text };
}

export const executeExplain = defineTool({
  name: "execute_explain",
  privilege: "execute_explain",
  description:
    "Show PostgreSQL's estimated execution plan for one query (SELECT, WITH, VALUES, TABLE; INSERT, UPDATE, DELETE and MERGE are planned too, never run). dbmon never executes the query: EXPLAIN runs without ANALYZE, in a READ ONLY transaction, so the plan has estimated costs and row counts, not actual times. `format` is text (default) or json. Use it to explain a slow query or check that an index is used.",
  compactDescription: "EXPLAIN a query (estimated plan; never runs it).",
  input: {
    query: z.string().min(1).describe("The query to explain (one statement)"),
    ...connectionArgs,
    analyze: z
      .boolean()
      .default(false)
      .describe("Not available: dbmon never runs the query, so the plan is always the estimated one"),
    buffers: z.boolean().default(false).describe("Not available: buffer counts need the query to run"),
    format: z.enum(["text", "json"]).default("text").describe("Plan format"),
  },
  async run(context, args) {
    const statement = await plannableStatement(context, "execute_explain", args.query);
    if ("refusal" in statement) {
      return statement.refusal;
    }
    const bound = await boundConnection(context, args);
    const results = await runRead(
      context,
      bound,
      `explain (format ${args.format}) ${statement.text}`,
      10_000,
    );
    const error = firstError(results);
    if (error) {
      return error;
    }
    const [result] = results as [StatementResult];
    if (result.rows.length === 0) {
      return failure("The server returned no plan");
    }
    const plan = result.rows.map((row) => row[0] ?? "").join("\n");
    return text(
      args.analyze || args.buffers
        ? `Estimated plan (dbmon never runs the query, so ANALYZE and BUFFERS are not available):\n${plan}`
        : plan,
    );
  },
});

export const countRows = defineTool({
  name: "count_rows",
  privilege: "count_rows",
  description:
    "Count the rows of a table on a monitored database, optionally only those matching a WHERE condition (SQL, without the WHERE keyword; it may call only functions of dbmon's read-only list). Exact count(*), in a READ ONLY transaction with a 30 s limit: prefer the collected table statistics for an estimate of a huge table.",
  compactDescription: "Count rows of a table, optionally with a WHERE condition.",
  input: {
    table: z.string().min(1).describe("Table name"),
    schema: z.string().min(1).default("public").describe("Schema of the table"),
    where: z.string().min(1).optional().describe("Condition, as SQL, without WHERE"),
    ...connectionArgs,
  },
  async run(context, args) {
    const sql = `select count(*) as count from ${quoteIdent(args.schema)}.${quoteIdent(args.table)}${args.where ? ` where ${args.where}` : ""}`;
    // The condition must not end the statement or start another: the whole text is one statement.
    const statement = await context.services.sql.parseOne(sql);
    const bound = await boundConnection(context, args);
    const results = await runRead(context, bound, [statement]);
    const error = firstError(results);
    if (error) {
      return error;
    }
    const count = results[0]?.rows[0]?.[0] ?? "0";
    return text(
      `${count} row${count === "1" ? "" : "s"} in ${args.schema}.${args.table}${args.where ? ` where ${args.where}` : ""}`,
    );
  },
});

export const testQuery = defineTool({
  name: "test_query",
  privilege: null,
  description:
    "Check that one SQL statement is valid (syntax, tables, columns, types) without running it: PostgreSQL's parser reads it, then the server plans it with EXPLAIN (never ANALYZE) in a READ ONLY transaction. Takes what EXPLAIN can plan: SELECT, WITH, VALUES, TABLE, INSERT, UPDATE, DELETE, MERGE. Answers `Query is valid` with the plan, or the error. Use it to check SQL before proposing it to the user or running it with query_database.",
  compactDescription: "Validate SQL without running it.",
  input: {
    query: z.string().min(1).describe("The statement to check"),
    ...connectionArgs,
  },
  async run(context, args) {
    let statement: Awaited<ReturnType<typeof plannableStatement>>;
    try {
      statement = await plannableStatement(context, "test_query", args.query);
    } catch (error) {
      if (error instanceof SqlSyntaxError) {
        return failure(`Query is not valid: ${error.message}`);
      }
      throw error;
    }
    if ("refusal" in statement) {
      return statement.refusal;
    }
    const bound = await boundConnection(context, args);
    const [result] = await runRead(context, bound, `explain ${statement.text}`, 10_000);
    if (!result || result.error) {
      return failure(`Query is not valid: ${(result?.error ?? "no result").replace(/^Query error: /, "")}`);
    }
    return text(["Query is valid", ...result.rows.map((row) => row[0] ?? "")].join("\n"));
  },
});

export const sqlTools = [queryDatabase, getSchemaInfo, executeExplain, countRows, testQuery];
