import { describe, expect, it } from "vitest";
import {
  forbiddenNames,
  isReadOnlyStatement,
  MAX_SQL_LENGTH,
  parseStatements,
  SqlTooLongError,
  type Statement,
  splitStatements,
} from "../src/sql/statements.js";

describe("splitting SQL into statements", () => {
  it("splits at top-level semicolons only", () => {
    expect(splitStatements("SELECT 1; SELECT ';'; SELECT $$a;b$$")).toEqual([
      "SELECT 1",
      "SELECT ';'",
      "SELECT $$a;b$$",
    ]);
  });

  it("respects quoted identifiers, tagged dollar quotes, E'' escapes and comments", () => {
    expect(
      splitStatements(
        `SELECT "a;b" FROM t; DO $fn$ BEGIN PERFORM 1; END $fn$; SELECT E'it\\'s;'; -- trailing; comment
SELECT /* a; /* nested; */ b */ 2`,
      ),
    ).toEqual([
      `SELECT "a;b" FROM t`,
      "DO $fn$ BEGIN PERFORM 1; END $fn$",
      "SELECT E'it\\'s;'",
      "-- trailing; comment\nSELECT /* a; /* nested; */ b */ 2",
    ]);
  });

  it("keeps doubled quotes inside strings", () => {
    expect(splitStatements("SELECT 'a'';b'; SELECT 2")).toEqual(["SELECT 'a'';b'", "SELECT 2"]);
  });

  it("drops statements that hold only comments or whitespace", () => {
    expect(splitStatements("-- only comment")).toEqual([]);
    expect(splitStatements(" ; /* x */ ;\n")).toEqual([]);
    expect(splitStatements("SELECT 1;;")).toEqual(["SELECT 1"]);
  });
});

describe("read-only statements", () => {
  it.each([
    "SELECT 1",
    "select * from pg_stat_activity",
    "SHOW work_mem",
    "EXPLAIN SELECT 1",
    "TABLE pg_class",
    "VALUES (1)",
    "WITH x AS (SELECT 1) SELECT * FROM x",
    "/* hi */ SELECT 'DELETE FROM t'",
    'SELECT "update" FROM t',
  ])("reads: %s", (statement) => {
    expect(isReadOnlyStatement(statement)).toBe(true);
  });

  it.each([
    "DELETE FROM t",
    "INSERT INTO t VALUES (1)",
    "UPDATE t SET a = 1",
    "CREATE TABLE t (a int)",
    "DROP TABLE t",
    "SELECT * INTO t2 FROM t",
    "SELECT * FROM t FOR UPDATE",
    "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
    "EXPLAIN ANALYZE DELETE FROM t",
    "VACUUM",
    "SET work_mem = '1GB'",
    "DO $$ BEGIN END $$",
    "COPY t TO STDOUT",
  ])("writes: %s", (statement) => {
    expect(isReadOnlyStatement(statement)).toBe(false);
  });
});

describe("hostile input", () => {
  // The regular expressions this scanner replaced needed about a minute for a megabyte of these
  // (quadratic); a linear scan needs milliseconds. The generous per-test bound keeps the assertion
  // about complexity without a timed threshold that a loaded machine could trip.
  const megabyte = 1_000_000;
  it.each([
    ["unterminated comments", `SELECT 1 ${"/* ".repeat(megabyte / 3)}`],
    [
      "unterminated dollar quotes with distinct tags",
      `SELECT ${Array.from({ length: megabyte / 8 }, (_, n) => `$t${n}$`).join(" ")}`.slice(0, megabyte),
    ],
    ["unterminated string", `SELECT '${"x'' ".repeat(megabyte / 4)}`],
    ["unterminated quoted identifier", `SELECT "${'""'.repeat(megabyte / 2)}`],
  ])("classifies a 1 MB body of %s at once", { timeout: 5_000 }, (_, sql) => {
    expect(sql.length).toBeGreaterThan(megabyte - 10);
    const statements = parseStatements(sql);
    expect(statements).toHaveLength(1);
    expect(isReadOnlyStatement(statements[0] as Statement)).toBe(true);
    expect(forbiddenNames(statements[0] as Statement)).toEqual([]);
  });

  it("refuses a text beyond the bound instead of scanning it", () => {
    expect(() => parseStatements("x".repeat(MAX_SQL_LENGTH + 1))).toThrow(SqlTooLongError);
  });
});

describe("names a read-only caller may not use", () => {
  it.each([
    ["select pg_terminate_backend(123)", ["pg_terminate_backend"]],
    ["SELECT PG_CATALOG.Pg_Reload_Conf()", ["pg_reload_conf"]],
    [`select "pg_read_file"('/etc/passwd')`, ["pg_read_file"]],
    ["select set_config('statement_timeout', '0', false)", ["set_config"]],
    ["select * from dblink('host=x', 'select 1') as t(a int)", ["dblink"]],
    ["select lo_export(1, '/tmp/x'), pg_ls_dir('.')", ["lo_export", "pg_ls_dir"]],
    [`select U&"\\0070g_sleep"(1)`, ['U&"\\0070g_sleep"']],
    ["select query_to_xml('select pg_cancel_backend(1)', true, true, '')", ["query_to_xml"]],
  ])("%s", (sql, names) => {
    expect(forbiddenNames(sql)).toEqual(names);
  });

  it("ignores the names inside strings, comments and dollar quotes", () => {
    expect(
      forbiddenNames("select 'pg_terminate_backend(1)', $x$ set_config $x$ /* pg_reload_conf() */ -- dblink"),
    ).toEqual([]);
  });

  it("sees code after an E'' string that ends in an escaped quote", () => {
    expect(forbiddenNames(String.raw`select E'\'', pg_cancel_backend(1)`)).toEqual(["pg_cancel_backend"]);
  });
});
