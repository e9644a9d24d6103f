/**
 * A linear SQL lexer for PostgreSQL text: enough to split statements and see their words, never a
 * parser. Every character is looked at a bounded number of times (dollar quotes are closed with one
 * `indexOf` that either ends the quote or the input), so hostile input such as a megabyte of
 * unterminated `/*` costs milliseconds, where the regular expressions it replaces were quadratic.
 *
 * It follows the server's rules where they decide what is code and what is not: nested block
 * comments, `--` starting a comment even inside an operator, doubled quotes, E'' backslash escapes,
 * dollar quotes with tags, and `$` continuing an identifier. `standard_conforming_strings` is assumed
 * on; the SQL execution core sets it on every session it opens so server and lexer agree.
 */

export type TokenKind =
  /** An unquoted identifier or keyword; `value` is lower-cased, as the server folds it. */
  | "word"
  /** A double-quoted identifier; `value` is exact. `unicode` when written U&"…" (escapes not decoded). */
  | "quoted"
  /** A string, dollar-quoted string, number or positional parameter; `value` is empty. */
  | "literal"
  /** A top-level `;`. */
  | "semicolon"
  /** Any other single character (operators, parentheses, commas, dots). */
  | "symbol";

export interface Token {
  kind: TokenKind;
  value: string;
  start: number;
  end: number;
  unicode?: boolean;
}

const SPACE = new Set([" ", "\t", "\n", "\r", "\f", "\v"]);

function isIdentStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code >= 128;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isIdentPart(code: number): boolean {
  return isIdentStart(code) || isDigit(code) || code === 36;
}

/** Tokens of `sql` in order; comments and white space are dropped. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  const length = sql.length;
  let i = 0;
  while (i < length) {
    const ch = sql[i] as string;
    const code = sql.charCodeAt(i);
    const next = sql[i + 1];
    const start = i;
    if (SPACE.has(ch)) {
      i++;
    } else if (ch === "-" && next === "-") {
      const end = sql.indexOf("\n", i + 2);
      i = end === -1 ? length : end + 1;
    } else if (ch === "/" && next === "*") {
      i = skipBlockComment(sql, i);
    } else if (ch === "'") {
      const previous = tokens.at(-1);
      const prefixed = previous !== undefined && previous.end === i && isStringPrefix(previous);
      // E'…' (the E directly before the quote) is the one string form with backslash escapes.
      const escapes = prefixed && previous.value === "e";
      if (prefixed) {
        tokens.pop();
      }
      i = skipQuoted(sql, i, "'", escapes);
      tokens.push({ kind: "literal", value: "", start: prefixed ? previous.start : start, end: i });
    } else if (ch === '"') {
      const previous = tokens.at(-1);
      const unicode =
        previous?.kind === "symbol" &&
        previous.value === "&" &&
        previous.end === i &&
        isUnicodePrefix(tokens);
      if (unicode) {
        tokens.pop();
        tokens.pop();
      }
      i = skipQuoted(sql, i, '"', false);
      const body = sql.slice(start + 1, Math.max(start + 1, sql[i - 1] === '"' ? i - 1 : i));
      tokens.push({
        kind: "quoted",
        value: body.split('""').join('"'),
        start,
        end: i,
        ...(unicode ? { unicode } : {}),
      });
    } else if (ch === "$" && isDigit(sql.charCodeAt(i + 1))) {
      i = skipWhile(sql, i + 1, isDigit);
      tokens.push({ kind: "literal", value: "", start, end: i });
    } else if (ch === "$") {
      const tagEnd = dollarTagEnd(sql, i);
      if (tagEnd === -1) {
        i++;
        tokens.push({ kind: "symbol", value: "$", start, end: i });
      } else {
        const tag = sql.slice(i, tagEnd);
        const close = sql.indexOf(tag, tagEnd);
        i = close === -1 ? length : close + tag.length;
        tokens.push({ kind: "literal", value: "", start, end: i });
      }
    } else if (isIdentStart(code)) {
      i = skipWhile(sql, i + 1, isIdentPart);
      tokens.push({ kind: "word", value: sql.slice(start, i).toLowerCase(), start, end: i });
    } else if (isDigit(code) || (ch === "." && isDigit(sql.charCodeAt(i + 1)))) {
      // Digits, a fraction, an exponent, 0x…, 1_000: all one literal.
      i = skipWhile(sql, i + 1, (c) => isIdentPart(c) || c === 46);
      tokens.push({ kind: "literal", value: "", start, end: i });
    } else if (ch === ";") {
      i++;
      tokens.push({ kind: "semicolon", value: ";", start, end: i });
    } else {
      i++;
      tokens.push({ kind: "symbol", value: ch, start, end: i });
    }
  }
  return tokens;
}

/** E'…', B'…', X'…' and N'…' are strings whose prefix letter is no identifier. */
function isStringPrefix(token: Token): boolean {
  return token.kind === "word" && ["e", "b", "x", "n"].includes(token.value);
}

/** Whether the two tokens before a `"` are `U&` written together: a Unicode-escaped identifier. */
function isUnicodePrefix(tokens: Token[]): boolean {
  const ampersand = tokens.at(-1);
  const u = tokens.at(-2);
  return u?.kind === "word" && u.value === "u" && u.end === ampersand?.start;
}

function skipWhile(sql: string, from: number, accept: (code: number) => boolean): number {
  let i = from;
  while (i < sql.length && accept(sql.charCodeAt(i))) {
    i++;
  }
  return i;
}

/** End (exclusive) of a `$tag$` opening at `open`, or -1 when the `$` opens none. */
function dollarTagEnd(sql: string, open: number): number {
  let i = open + 1;
  if (i < sql.length && sql[i] !== "$") {
    if (!isIdentStart(sql.charCodeAt(i))) {
      return -1;
    }
    i = skipWhile(sql, i + 1, (c) => isIdentStart(c) || isDigit(c));
  }
  return sql[i] === "$" ? i + 1 : -1;
}

function skipQuoted(sql: string, open: number, quote: string, backslashEscapes: boolean): number {
  let i = open + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (backslashEscapes && ch === "\\") {
      i += 2;
    } else if (ch === quote) {
      if (sql[i + 1] !== quote) {
        return i + 1;
      }
      i += 2;
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
