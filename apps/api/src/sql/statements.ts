import { type Token, tokenize } from "./lexer.js";

/**
 * The longest SQL text accepted, in characters: the HTTP body limit is 1 MB, and other callers (MCP
 * tools) get the same bound so no caller can hand the lexer or the server an unbounded text.
 */
export const MAX_SQL_LENGTH = 1_048_576;

export class SqlTooLongError extends Error {
  constructor() {
    super(`Query is too long (at most ${MAX_SQL_LENGTH} characters)`);
  }
}

/** One statement: its text as written (trimmed, comments kept) and its tokens. */
export interface Statement {
  text: string;
  tokens: Token[];
}

/**
 * Splits SQL text into statements at top-level semicolons. Statements that hold only comments or
 * white space are dropped. Throws SqlTooLongError beyond MAX_SQL_LENGTH.
 */
export function parseStatements(sql: string): Statement[] {
  if (sql.length > MAX_SQL_LENGTH) {
    throw new SqlTooLongError();
  }
  const statements: Statement[] = [];
  let start = 0;
  let tokens: Token[] = [];
  const flush = (end: number) => {
    if (tokens.length > 0) {
      statements.push({ text: sql.slice(start, end).trim(), tokens });
    }
    tokens = [];
  };
  for (const token of tokenize(sql)) {
    if (token.kind === "semicolon") {
      flush(token.start);
      start = token.end;
    } else {
      tokens.push(token);
    }
  }
  flush(sql.length);
  return statements;
}

export function splitStatements(sql: string): string[] {
  return parseStatements(sql).map((statement) => statement.text);
}

const READ_ONLY_START = new Set(["select", "show", "explain", "table", "values"]);
const DATA_CHANGES = new Set(["insert", "update", "delete", "merge"]);
const WRITE_KEYWORDS = new Set([
  ...DATA_CHANGES,
  ..."create drop alter truncate grant revoke copy call do lock refresh reindex vacuum cluster comment security import set reset notify listen".split(
    " ",
  ),
]);

function toStatement(statement: string | Statement): Statement {
  return typeof statement === "string" ? { text: statement, tokens: tokenize(statement) } : statement;
}

/**
 * Whether a statement only reads. Conservative: anything not clearly a query counts as a write, and
 * read-only statements also run inside a READ ONLY transaction, which the server enforces.
 */
export function isReadOnlyStatement(input: string | Statement): boolean {
  const { tokens } = toStatement(input);
  const words = tokens.filter((token) => token.kind === "word").map((token) => token.value);
  const first = tokens[0]?.kind === "word" ? tokens[0].value : "";
  const has = (set: Set<string>) => words.some((word) => set.has(word));
  if (first === "explain" && words.includes("analyze")) {
    return !has(WRITE_KEYWORDS);
  }
  if (READ_ONLY_START.has(first) || first === "with") {
    return !words.includes("into") && !locksRows(words) && !(first === "with" && has(DATA_CHANGES));
  }
  return false;
}

/** FOR UPDATE, FOR NO KEY UPDATE, FOR SHARE, FOR KEY SHARE: a read that takes row locks. */
function locksRows(words: string[]): boolean {
  return words.some((word, at) => {
    if (word !== "for") {
      return false;
    }
    const [a, b, c] = words.slice(at + 1, at + 4);
    return (
      a === "update" ||
      a === "share" ||
      (a === "no" && b === "key" && c === "update") ||
      (a === "key" && b === "share")
    );
  });
}

/**
 * Functions a read-only caller may not name: they act outside the transaction (signal or stop
 * backends, reload or rotate, write or read server files, open connections elsewhere, change
 * settings such as statement_timeout, take session locks, reset statistics, consume replication
 * data) or run SQL given as text, which would hide all of the above from this check.
 */
const FORBIDDEN_FUNCTIONS = new Set([
  "pg_terminate_backend",
  "pg_cancel_backend",
  "pg_reload_conf",
  "pg_rotate_logfile",
  "pg_read_file",
  "pg_read_binary_file",
  "pg_ls_dir",
  "pg_stat_file",
  "pg_logdir_ls",
  "set_config",
  "pg_notify",
  "pg_switch_wal",
  "pg_create_restore_point",
  "pg_backup_start",
  "pg_backup_stop",
  "pg_start_backup",
  "pg_stop_backup",
  "pg_promote",
  "pg_wal_replay_pause",
  "pg_wal_replay_resume",
  "pg_log_backend_memory_contexts",
  "pg_log_standby_snapshot",
  "pg_logical_emit_message",
  "pg_import_system_collations",
  "pg_replication_slot_advance",
  "pg_drop_replication_slot",
  "pg_stat_statements_reset",
  "lowrite",
  "ts_stat",
]);
const FORBIDDEN_PREFIXES = [
  "dblink",
  "lo_",
  "pg_file_",
  "pg_stat_reset",
  "pg_advisory",
  "pg_try_advisory",
  "pg_replication_origin",
  "pg_logical_slot_get",
  "pg_create_",
  "pg_copy_",
  "query_to_xml",
];

/**
 * Names in the statement that a read-only caller may not use, whatever their position (a call, a
 * FROM item, a qualified name). Unicode-escaped identifiers (U&"…") are refused as a whole because
 * they can spell any name.
 */
export function forbiddenNames(input: string | Statement): string[] {
  const found = new Set<string>();
  for (const token of toStatement(input).tokens) {
    if (token.kind === "quoted" && token.unicode) {
      found.add(`U&"${token.value}"`);
    } else if (
      (token.kind === "word" || token.kind === "quoted") &&
      (FORBIDDEN_FUNCTIONS.has(token.value) ||
        FORBIDDEN_PREFIXES.some((prefix) => token.value.startsWith(prefix)))
    ) {
      found.add(token.value);
    }
  }
  return [...found];
}
