/**
 * Splits SQL text into statements at top-level semicolons, aware of string literals (standard and
 * E'' escapes), quoted identifiers, dollar quoting and both comment styles. Statements that hold
 * only comments or whitespace are dropped; each statement is returned trimmed, comments kept.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let meaningful = false;
  let i = 0;
  const flush = (end: number) => {
    if (meaningful) {
      statements.push(sql.slice(start, end).trim());
    }
    start = end + 1;
    meaningful = false;
  };
  while (i < sql.length) {
    const ch = sql[i] as string;
    const next = sql[i + 1];
    if (ch === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (ch === "/" && next === "*") {
      i = skipBlockComment(sql, i);
    } else if (ch === "'") {
      const escapes = /[eE]/.test(sql[i - 1] ?? "") && !/[\w$]/.test(sql[i - 2] ?? "");
      i = skipQuoted(sql, i, "'", escapes);
      meaningful = true;
    } else if (ch === '"') {
      i = skipQuoted(sql, i, '"', false);
      meaningful = true;
    } else if (ch === "$" && !/[\w$]/.test(sql[i - 1] ?? "")) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length);
        i = end === -1 ? sql.length : end + tag.length;
      } else {
        i++;
      }
      meaningful = true;
    } else if (ch === ";") {
      flush(i);
      i++;
    } else {
      if (!/\s/.test(ch)) {
        meaningful = true;
      }
      i++;
    }
  }
  flush(sql.length);
  return statements;
}

function skipQuoted(sql: string, open: number, quote: string, backslashEscapes: boolean): number {
  let i = open + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (backslashEscapes && ch === "\\") {
      i += 2;
    } else if (ch === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
      } else {
        return i + 1;
      }
    } else {
      i++;
    }
  }
  return sql.length;
}

function skipBlockComment(sql: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < sql.length) {
    if (sql[i] === "/" && sql[i + 1] === "*") {
      depth++;
      i += 2;
    } else if (sql[i] === "*" && sql[i + 1] === "/") {
      depth--;
      i += 2;
      if (depth === 0) {
        return i;
      }
    } else {
      i++;
    }
  }
  return sql.length;
}

/** The statement with comments removed and string/identifier contents blanked, for keyword checks. */
function keywordText(statement: string): string {
  return statement
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$/g, " '' ")
    .replace(/'(?:[^']|'')*'/g, " '' ")
    .replace(/"(?:[^"]|"")*"/g, ' "" ')
    .trim()
    .toUpperCase();
}

const READ_ONLY_START = /^(SELECT|SHOW|EXPLAIN|TABLE|VALUES)\b/;
const WRITE_KEYWORDS =
  /\b(INSERT|UPDATE|DELETE|MERGE|CREATE|DROP|ALTER|TRUNCATE|GRANT|REVOKE|COPY|CALL|DO|LOCK|REFRESH|REINDEX|VACUUM|CLUSTER|COMMENT|SECURITY|IMPORT|SET|RESET|NOTIFY|LISTEN)\b/;

/**
 * Whether a statement only reads. Conservative: anything not clearly a query counts as a write,
 * and the statement also runs inside a READ ONLY transaction, which the server enforces.
 */
export function isReadOnlyStatement(statement: string): boolean {
  const text = keywordText(statement);
  if (/^EXPLAIN\b/.test(text) && /\bANALYZE\b/.test(text)) {
    return !WRITE_KEYWORDS.test(text.replace(/^EXPLAIN\b/, ""));
  }
  if (READ_ONLY_START.test(text)) {
    return !/\bINTO\b/.test(text) && !/\bFOR\s+(UPDATE|SHARE|NO\s+KEY\s+UPDATE|KEY\s+SHARE)\b/.test(text);
  }
  if (/^WITH\b/.test(text)) {
    return !/\b(INSERT|UPDATE|DELETE|MERGE)\b/.test(text);
  }
  return false;
}
