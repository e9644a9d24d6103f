import { afterAll, describe, expect, it } from "vitest";
import { InvalidInput, TooManyRequests } from "../src/errors.js";
import { MAX_SQL_LENGTH, SqlParser, SqlSyntaxError } from "../src/sql/parser.js";
import { parseSql } from "./sql-support.js";

const texts = async (sql: string) => (await parseSql(sql)).map((statement) => statement.text);
const only = async (sql: string) => {
  const statements = await parseSql(sql);
  expect(statements).toHaveLength(1);
  return statements[0] as NonNullable<(typeof statements)[0]>;
};

describe("statements as PostgreSQL's parser reads them", () => {
  it("splits where the server would: quotes, dollar quotes, E'' escapes, nested comments", async () => {
    expect(await texts("SELECT 1; SELECT ';'; SELECT $$a;b$$")).toEqual([
      "SELECT 1",
      "SELECT ';'",
      "SELECT $$a;b$$",
    ]);
    expect(
      await texts(
        `SELECT "a;b" FROM t; DO $fn$ BEGIN PERFORM 1; END $fn$; SELECT E'it\\'s;'; -- trailing; comment
SELECT /* a; /* nested; */ b */ 2`,
      ),
    ).toEqual([
      `SELECT "a;b" FROM t`,
      "DO $fn$ BEGIN PERFORM 1; END $fn$",
      "SELECT E'it\\'s;'",
      // A comment before a statement is not part of it (the parser starts it at its first token).
      "SELECT /* a; /* nested; */ b */ 2",
    ]);
    expect(await texts("SELECT 'é;'; SELECT 2")).toEqual(["SELECT 'é;'", "SELECT 2"]);
  });

  it("drops statements that hold only comments or whitespace", async () => {
    expect(await texts("-- only comment")).toEqual([]);
    expect(await texts(" ; /* x */ ;\n")).toEqual([]);
    expect(await texts("SELECT 1;;")).toEqual(["SELECT 1"]);
  });

  it("ends a -- comment at a carriage return, as the server does (the lexer it replaces did not)", async () => {
    const statements = await parseSql("show search_path --\r; commit; copy (select 1) to program 'id'\n");
    expect(statements.map((statement) => statement.command)).toEqual(["SHOW", "COMMIT", "COPY"]);
    expect(statements[1]?.refused).toMatch(/^transaction control \(COMMIT\)/);
    expect(statements[2]?.refused).toMatch(/^COPY/);
    expect((await only("select 1 --\r, pg_read_file('/etc/passwd')")).notRead).toBe(
      "the function pg_read_file",
    );
  });
});

describe("the read-only allow-list", () => {
  it.each([
    "SELECT 1",
    "select * from pg_stat_activity",
    "SHOW work_mem",
    "EXPLAIN SELECT 1",
    "explain (format json, costs off) select * from t",
    "explain insert into t values (1)",
    "TABLE pg_class",
    "VALUES (1)",
    "WITH x AS (SELECT 1) SELECT * FROM x",
    "/* hi */ SELECT 'DELETE FROM t', $$pg_terminate_backend(1)$$",
    'SELECT "update" FROM t',
    "select lower(x), pg_catalog.upper(y), count(*), now() - interval '1 hour' from t group by 1, 2",
    "select pg_size_pretty(pg_database_size(current_database())), jsonb_build_object('a', 1)",
    "select * from generate_series(1, 3) g order by g using operator(pg_catalog.<)",
  ])("reads: %s", async (sql) => {
    const statement = await only(sql);
    expect(statement.notRead).toBeUndefined();
    expect(statement.refused).toBeUndefined();
  });

  it.each([
    ["DELETE FROM t", "the statement DELETE"],
    ["insert into t values (1)", "the statement INSERT"],
    ["CREATE TABLE t (a int)", "the statement CREATE TABLE"],
    ["SELECT * INTO t2 FROM t", "SELECT INTO (it creates a table)"],
    ["SELECT * FROM t FOR UPDATE", "FOR UPDATE / FOR SHARE (row locks)"],
    ["select 1 from t for key share", "FOR UPDATE / FOR SHARE (row locks)"],
    ["WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "DELETE in a WITH clause (it changes data)"],
    ["EXPLAIN ANALYZE SELECT 1", "EXPLAIN ANALYZE (it runs the statement)"],
    ["explain analyse select 1", "EXPLAIN ANALYZE (it runs the statement)"],
    ["explain (ANALYZE true) select 1", "EXPLAIN ANALYZE (it runs the statement)"],
    ["explain (analyze 1) select 1", "EXPLAIN ANALYZE (it runs the statement)"],
    ["explain (format json, analyse) select 1", "EXPLAIN ANALYZE (it runs the statement)"],
    ["explain create table x as select 1", expect.stringMatching(/^the statement CREATE TABLE AS/)],
    ["SET work_mem = '1GB'", "the statement SET"],
    ["set role postgres", "the statement SET"],
    ["reset role", "the statement RESET"],
    ["set session authorization postgres", "the statement SET"],
    ["DO $$ BEGIN END $$", "the statement DO"],
    ["call p()", "the statement CALL"],
    ["listen x", "the statement LISTEN"],
    ["declare c cursor for select 1", "the statement DECLARE CURSOR"],
    ["prepare p as select 1", "the statement PREPARE"],
    ["execute p", "the statement EXECUTE"],
    ["select set_config('role', 'none', true)", "the function set_config"],
    ["select pg_catalog.set_config('role', 'postgres', true)", "the function pg_catalog.set_config"],
    ["select \"set_config\"('work_mem', '1GB', false)", "the function set_config"],
    [`select U&"\\0070g_read_file"('/etc/passwd')`, "the function pg_read_file"],
    [
      "select ts_rewrite('a & b'::tsquery, 'select ''a''::tsquery, ''c''::tsquery')",
      "the function ts_rewrite",
    ],
    ["select query_to_xml('select pg_cancel_backend(1)', true, true, '')", "the function query_to_xml"],
    ["select * from dblink('host=x', 'select 1') as t(a int)", "the function dblink"],
    ["select brin_summarize_new_values('i'::regclass)", "the function brin_summarize_new_values"],
    ["select gin_clean_pending_list('i'::regclass)", "the function gin_clean_pending_list"],
    ["select pg_terminate_backend(1)", "the function pg_terminate_backend"],
    ["select nextval('s')", "the function nextval"],
    ["select pg_notify('c', 'x')", "the function pg_notify"],
    ["select pg_advisory_lock(1)", "the function pg_advisory_lock"],
    ["select public.lower('x')", "the function public.lower"],
    ["select my_function()", "the function my_function"],
    ["select 1 operator(public.+) 2", expect.stringMatching(/^the operator public\.\+/)],
    ["select (select lower(x) from (select pg_reload_conf() as x) s)", "the function pg_reload_conf"],
  ])("not a read: %s", async (sql, reason) => {
    expect((await only(sql)).notRead).toEqual(reason);
  });

  it.each([
    ["begin", "BEGIN"],
    ["start transaction read write", "START TRANSACTION"],
    ["commit", "COMMIT"],
    ["rollback", "ROLLBACK"],
    ["savepoint a", "SAVEPOINT"],
    ["prepare transaction 'x'", "PREPARE TRANSACTION"],
  ])("refuses transaction control in every mode: %s", async (sql, command) => {
    expect((await only(sql)).refused).toBe(
      `transaction control (${command}): each request runs in one transaction of its own`,
    );
  });

  it("refuses COPY and changes of how strings are read, in every mode", async () => {
    expect((await only("copy t to stdout")).refused).toMatch(/^COPY/);
    expect((await only("copy t from program 'id'")).refused).toMatch(/^COPY/);
    expect((await only("set standard_conforming_strings = off")).refused).toMatch(
      /^SET standard_conforming_strings/,
    );
  });

  it("says what EXPLAIN (without ANALYZE) can plan", async () => {
    expect((await only("update t set a = 1")).notPlannable).toBeUndefined();
    expect((await only("select lower(a) from t")).notPlannable).toBeUndefined();
    expect((await only("select pg_terminate_backend(1)")).notPlannable).toBe(
      "the function pg_terminate_backend",
    );
    expect((await only("create table x (a int)")).notPlannable).toMatch(/^the statement CREATE TABLE/);
  });

  it("reads rows whole only where a cursor's portal would yield none", async () => {
    expect((await only("explain select 1")).wholeResult).toBe(true);
    expect((await only("show work_mem")).wholeResult).toBe(true);
    expect((await only("select 1")).wholeResult).toBe(false);
  });
});

describe("the parser's threads", () => {
  const parser = new SqlParser({ threads: 2, deadlineMs: 500, maxQueued: 4 });
  afterAll(() => parser.close());

  it("parses in a worker thread and reports syntax errors with their position", async () => {
    expect((await parser.parse("select 1; select 2")).map((s) => s.text)).toEqual(["select 1", "select 2"]);
    const failure = parser.parse("select 1 +");
    await expect(failure).rejects.toBeInstanceOf(SqlSyntaxError);
    await expect(failure).rejects.toThrow("Syntax error: syntax error at end of input (at character 11)");
  });

  it("ends a parse that outlives its deadline (nested comment openers are quadratic), and goes on", {
    timeout: 30_000,
  }, async () => {
    const bomb = `select 1 ${"/*".repeat(200_000)}`;
    const outcome = parser.parse(bomb);
    await expect(outcome).rejects.toBeInstanceOf(InvalidInput);
    await expect(outcome).rejects.toThrow(
      "The SQL could not be parsed within 0.5 s; nothing was sent to the server",
    );
    expect((await parser.parse("select 3")).map((s) => s.text)).toEqual(["select 3"]);
  });

  it("refuses a text beyond the cap without parsing it", async () => {
    await expect(parser.parse("x".repeat(MAX_SQL_LENGTH + 1))).rejects.toThrow(
      `Query is too long (at most ${MAX_SQL_LENGTH} characters)`,
    );
  });

  it("refuses at once when too many texts wait for a thread", { timeout: 30_000 }, async () => {
    const bomb = `select 1 ${"/*".repeat(200_000)}`;
    const waiting = Array.from({ length: 6 }, () => parser.parse(bomb).catch((error: unknown) => error));
    const over = await parser.parse(bomb).catch((error: unknown) => error);
    expect(over).toBeInstanceOf(TooManyRequests);
    for (const outcome of await Promise.all(waiting)) {
      expect(outcome).toBeInstanceOf(InvalidInput);
    }
  });
});
