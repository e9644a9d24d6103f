import { parseSync } from "libpg-query";
import { READ_ONLY_FUNCTIONS } from "./read-only-functions.js";

/**
 * One statement of a text, as PostgreSQL's own parser (libpg-query, the server's grammar compiled
 * to WebAssembly) read it, with the verdicts the SQL core acts on. Every verdict is an allow-list:
 * what is not named here as allowed is not.
 */
export interface Statement {
  /** The statement's text as written (trimmed): exactly what is sent, alone, to the server. */
  text: string;
  /** Its command in SQL words (SELECT, INSERT, SET, COPY, …). */
  command: string;
  /** Why it is not a read, naming the statement kind or function; undefined for a read. */
  notRead?: string;
  /** Why it may not run at all, in any mode; undefined when it may. */
  refused?: string;
  /** Why EXPLAIN (without ANALYZE) cannot plan it; undefined when it can. */
  notPlannable?: string;
  /** Its rows come whole (EXPLAIN, SHOW, CALL…): a portal with a row limit would yield nothing. */
  wholeResult: boolean;
  /**
   * Set on a statement that is not a read only because it calls HypoPG's functions, which make
   * hypothetical indexes in the session's private memory and nothing on the server: the index
   * advisor's runs allow it (RunStatementsOptions.hypotheticalIndexes), no other caller's.
   */
  hypotheticalIndexes?: true;
}

/** A syntax error as PostgreSQL's parser reports it; nothing of the text is sent anywhere. */
export interface SyntaxErrorReport {
  message: string;
  /** 1-based character position of the error, when the parser gave one. */
  position?: number;
}

/**
 * Its parse tree (the statement's node, as libpg-query gives it), with the statement's text: node
 * locations count bytes of the UTF-8 text from the start of the text parsed, `offset` bytes before
 * this statement.
 */
export interface StatementTree {
  node: Record<string, unknown>;
  offset: number;
}

/** The longest parse tree (as JSON text) handed out of the parser's thread. */
export const MAX_TREE_CHARS = 4 * 1024 * 1024;

export type Classification =
  | { ok: true; statements: Statement[]; trees?: StatementTree[] }
  | { ok: false; syntaxError: SyntaxErrorReport };

type Node = Record<string, unknown>;

/** Statements EXPLAIN plans (and, with ANALYZE, would run); the only ones read through a cursor. */
const PLANNABLE = new Set(["SelectStmt", "InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt"]);
const DATA_CHANGES: Record<string, string> = {
  InsertStmt: "INSERT",
  UpdateStmt: "UPDATE",
  DeleteStmt: "DELETE",
  MergeStmt: "MERGE",
};
/** Nodes that may name an operator, and the field that holds its (possibly qualified) name. */
const OPERATOR_FIELDS: Record<string, string> = { A_Expr: "name", SortBy: "useOp", SubLink: "operName" };
/**
 * HypoPG's functions the index advisor calls: they make, size and drop hypothetical indexes, which
 * live in the session's private memory (gone with the session) and are never written anywhere.
 */
const HYPOPG_FUNCTIONS = new Set(["hypopg_create_index", "hypopg_relation_size", "hypopg_reset"]);
/** Settings the parser's reading of string literals depends on: they must stay as sessions start. */
const LEXER_SETTINGS = new Set(["standard_conforming_strings", "backslash_quote"]);

/**
 * Parses SQL text with PostgreSQL's grammar (synchronously: callers run this in a worker with a
 * deadline, see parser.ts) and classifies each statement. The parser must have been loaded
 * (libpg-query's loadModule).
 */
export function classifySql(sql: string, options: { trees?: boolean } = {}): Classification {
  let tree: { stmts?: { stmt: Node; stmt_location?: number; stmt_len?: number }[] };
  try {
    tree = parseSync(sql) as typeof tree;
  } catch (error) {
    const details = (error as { sqlDetails?: { message?: string; cursorPosition?: number } }).sqlDetails;
    return {
      ok: false,
      syntaxError: {
        message: details?.message ?? (error instanceof Error ? error.message : String(error)),
        // The parser counts characters from 0; PostgreSQL's messages count from 1.
        ...(details?.cursorPosition !== undefined && details.cursorPosition >= 0
          ? { position: details.cursorPosition + 1 }
          : {}),
      },
    };
  }
  // Locations are byte offsets into the UTF-8 text.
  const bytes = Buffer.from(sql, "utf8");
  const statements = (tree.stmts ?? []).map((entry) => {
    const start = entry.stmt_location ?? 0;
    const end = entry.stmt_len ? start + entry.stmt_len : bytes.length;
    return classifyStatement(entry.stmt, bytes.subarray(start, end).toString("utf8").trim());
  });
  if (!options.trees) {
    return { ok: true, statements };
  }
  if (JSON.stringify(tree).length > MAX_TREE_CHARS) {
    throw new Error(`the statements' parse trees are larger than ${MAX_TREE_CHARS} characters`);
  }
  const trees = (tree.stmts ?? []).map((entry) => ({ node: entry.stmt, offset: entry.stmt_location ?? 0 }));
  return { ok: true, statements, trees };
}

function classifyStatement(wrapper: Node, text: string): Statement {
  const [kind, node] = unwrap(wrapper);
  const statement: Statement = {
    text,
    command: commandOf(kind, node),
    wholeResult: !PLANNABLE.has(kind),
  };
  const refused = refusedEverywhere(kind, node);
  if (refused) {
    statement.refused = refused;
  }
  const plannable = plannableProblem(kind, node);
  if (plannable) {
    statement.notPlannable = plannable;
  }
  const notRead = readProblem(kind, node, statement.command);
  if (notRead) {
    statement.notRead = notRead;
    if (kind === "SelectStmt" && !treeProblem({ [kind]: node }, { dataChanges: true, hypoPG: true })) {
      statement.hypotheticalIndexes = true;
    }
  }
  return statement;
}

function unwrap(wrapper: Node): [string, Node] {
  const [entry] = Object.entries(wrapper);
  return entry ? [entry[0], (entry[1] ?? {}) as Node] : ["", {}];
}

function refusedEverywhere(kind: string, node: Node): string | undefined {
  if (kind === "TransactionStmt") {
    return `transaction control (${commandOf(kind, node)}): each request runs in one transaction of its own`;
  }
  if (kind === "CopyStmt") {
    return "COPY: dbmon runs no COPY (it reads or writes server files, programs or a client stream)";
  }
  if (kind === "VariableSetStmt" && LEXER_SETTINGS.has(String(node.name ?? "").toLowerCase())) {
    return `SET ${String(node.name)}: the statements are read with the setting as the session starts`;
  }
  return undefined;
}

/** Why the statement is not a read, or undefined: SELECT, VALUES, TABLE, SHOW, EXPLAIN without ANALYZE. */
function readProblem(kind: string, node: Node, command: string): string | undefined {
  if (kind === "VariableShowStmt") {
    return undefined;
  }
  if (kind === "ExplainStmt") {
    const analyze = ((node.options ?? []) as Node[]).some((option) => {
      const name = String((option.DefElem as Node | undefined)?.defname ?? "").toLowerCase();
      return name === "analyze" || name === "analyse";
    });
    if (analyze) {
      return "EXPLAIN ANALYZE (it runs the statement)";
    }
    const [innerKind, inner] = unwrap((node.query ?? {}) as Node);
    return plannableProblem(innerKind, inner);
  }
  if (kind !== "SelectStmt") {
    return `the statement ${command}`;
  }
  return treeProblem({ [kind]: node }, { dataChanges: true, hypoPG: false });
}

/** Why EXPLAIN without ANALYZE cannot plan the statement safely, or undefined. */
function plannableProblem(kind: string, node: Node): string | undefined {
  if (!PLANNABLE.has(kind)) {
    return `the statement ${commandOf(kind, node)} (only SELECT, VALUES, TABLE, INSERT, UPDATE, DELETE and MERGE can be planned)`;
  }
  // Planning folds constant calls of immutable functions, so the functions must be known ones.
  return treeProblem({ [kind]: node }, { dataChanges: false, hypoPG: false });
}

/** What a walk of a tree looks for; `hypoPG` allows HypoPG's functions, in any one schema. */
interface TreeChecks {
  dataChanges: boolean;
  hypoPG: boolean;
}

/**
 * Walks a statement's tree (iteratively: a deeply nested statement must not exhaust the stack) for
 * what keeps it from being a read: functions off the allow-list, operators outside pg_catalog and,
 * when `dataChanges` is set, data-modifying WITH clauses, SELECT INTO and row locks.
 */
function treeProblem(root: Node, checks: TreeChecks): string | undefined {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      pending.push(...value);
      continue;
    }
    if (value === null || typeof value !== "object") {
      continue;
    }
    for (const [key, child] of Object.entries(value as Node)) {
      const problem = nodeProblem(key, child, checks);
      if (problem) {
        return problem;
      }
      if (child !== null && typeof child === "object") {
        pending.push(child);
      }
    }
  }
  return undefined;
}

function nodeProblem(key: string, child: unknown, checks: TreeChecks): string | undefined {
  const node = (child ?? {}) as Node;
  if (key === "FuncCall") {
    const name = names(node.funcname);
    if (checks.hypoPG && name.length <= 2 && HYPOPG_FUNCTIONS.has(name.at(-1) ?? "")) {
      return undefined;
    }
    return functionProblem(name);
  }
  const operatorField = OPERATOR_FIELDS[key];
  if (operatorField) {
    const operator = names(node[operatorField]);
    if (operator.length > 1 && operator[0] !== "pg_catalog") {
      return `the operator ${operator.join(".")} (only pg_catalog's operators may be named with a schema)`;
    }
    return undefined;
  }
  if (!checks.dataChanges) {
    return undefined;
  }
  const change = DATA_CHANGES[key];
  if (change) {
    return `${change} in a WITH clause (it changes data)`;
  }
  if (key === "SelectStmt" && node.intoClause) {
    return "SELECT INTO (it creates a table)";
  }
  if (key === "SelectStmt" && Array.isArray(node.lockingClause) && node.lockingClause.length > 0) {
    return "FOR UPDATE / FOR SHARE (row locks)";
  }
  return undefined;
}

function functionProblem(parts: string[]): string | undefined {
  const qualified = parts.join(".");
  const [schema, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  const allowed =
    parts.length <= 2 &&
    (schema === undefined || schema === "pg_catalog") &&
    name !== undefined &&
    READ_ONLY_FUNCTIONS.has(name);
  return allowed ? undefined : `the function ${qualified}`;
}

/** The strings of a name list (funcname, an operator's name): [{String: {sval}}…]. */
function names(list: unknown): string[] {
  if (!Array.isArray(list)) {
    return [];
  }
  return list.map((item) => String(((item as Node).String as Node | undefined)?.sval ?? ""));
}

const COMMANDS: Record<string, string> = {
  SelectStmt: "SELECT",
  VariableShowStmt: "SHOW",
  CopyStmt: "COPY",
  DoStmt: "DO",
  CallStmt: "CALL",
  CreateStmt: "CREATE TABLE",
  IndexStmt: "CREATE INDEX",
  ViewStmt: "CREATE VIEW",
  CreateFunctionStmt: "CREATE FUNCTION",
  CreateTableAsStmt: "CREATE TABLE AS",
  CreateRoleStmt: "CREATE ROLE",
  AlterRoleStmt: "ALTER ROLE",
  DeclareCursorStmt: "DECLARE CURSOR",
  ClosePortalStmt: "CLOSE",
  FetchStmt: "FETCH",
  ...DATA_CHANGES,
};

const TRANSACTION_COMMANDS: Record<string, string> = {
  TRANS_STMT_BEGIN: "BEGIN",
  TRANS_STMT_START: "START TRANSACTION",
  TRANS_STMT_COMMIT: "COMMIT",
  TRANS_STMT_ROLLBACK: "ROLLBACK",
  TRANS_STMT_SAVEPOINT: "SAVEPOINT",
  TRANS_STMT_RELEASE: "RELEASE",
  TRANS_STMT_ROLLBACK_TO: "ROLLBACK TO",
  TRANS_STMT_PREPARE: "PREPARE TRANSACTION",
  TRANS_STMT_COMMIT_PREPARED: "COMMIT PREPARED",
  TRANS_STMT_ROLLBACK_PREPARED: "ROLLBACK PREPARED",
};

/** A statement kind in SQL words: a few by name, the rest from the node's (AlterTableStmt: ALTER TABLE). */
function commandOf(kind: string, node: Node): string {
  if (kind === "TransactionStmt") {
    return TRANSACTION_COMMANDS[String(node.kind)] ?? "transaction control";
  }
  if (kind === "VariableSetStmt") {
    return String(node.kind ?? "").startsWith("VAR_RESET") ? "RESET" : "SET";
  }
  if (kind === "ExplainStmt") {
    return "EXPLAIN";
  }
  if (kind === "VacuumStmt") {
    return node.is_vacuumcmd ? "VACUUM" : "ANALYZE";
  }
  return (
    COMMANDS[kind] ??
    kind
      .replace(/Stmt$/, "")
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toUpperCase()
  );
}
