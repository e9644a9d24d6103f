import { describe, expect, it } from "vitest";
import { isReadOnlyStatement, splitStatements } from "../src/connections/sql-statements.js";

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
