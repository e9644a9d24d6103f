import fc from "fast-check";

/**
 * SQL for the fuzzer, from a grammar of the forms where a hand-written lexer and PostgreSQL's own
 * can disagree on where a comment, a string or a statement ends: comment terminators, nested and
 * unterminated comments, dollar quotes, E'' and U&'' strings, UESCAPE, semicolons inside and
 * outside quotes, EXPLAIN ANALYZE in every spelling. Each form wraps writes, session changes and
 * transaction control aimed at the sentinel objects (`fuzz_sentinel`, its sequence and procedure,
 * see fuzz-monitored.ts), so a form that smuggles one past the read-only checks shows as a change
 * of the sentinel or the catalog, not only as an answer.
 */

/** Statements that only read. */
const reads = [
  "select 1",
  "SELECT count(*) FROM fuzz_sentinel",
  "select * from fuzz_sentinel order by id",
  "table fuzz_sentinel",
  "values (1, 'a'), (2, 'b')",
  "show search_path",
  "show transaction_read_only",
  "explain select * from fuzz_sentinel",
  "with s as (select * from fuzz_sentinel) select count(*) from s",
  "(select 1)",
  "select current_setting('transaction_read_only')",
  "select $$;$$ as dollar",
  "select 'a;b' as quoted",
  'select 1 as "a;b"',
  "select E'\\\\;' as escaped",
  "select pg_sleep(0.001)",
  "select relname from pg_class where relname = 'fuzz_sentinel'",
  "select pg_read_file('/etc/hostname')",
  "select rolname from pg_authid",
];

/**
 * Statements that change what the write witness sees (fuzz-monitored.ts) if they run: none may ever
 * take effect.
 */
export const writes = [
  "insert into fuzz_sentinel values (1000, 'fuzzed')",
  "update fuzz_sentinel set note = 'fuzzed'",
  "delete from fuzz_sentinel",
  "truncate fuzz_sentinel",
  "drop table fuzz_sentinel",
  "alter table fuzz_sentinel add column fuzzed int",
  "create table fuzz_created (id int)",
  "create table fuzz_created as select 1 as id",
  "select 1 as id into fuzz_created",
  "create temp table fuzz_temp (id int)",
  "create index fuzz_created_idx on fuzz_sentinel (note)",
  "create schema fuzz_created_schema",
  "create function fuzz_created_fn() returns int language sql as $$ select 1 $$",
  "create view fuzz_created_view as select 1 as id",
  "create materialized view fuzz_created_matview as select 1 as id",
  "cluster fuzz_sentinel using fuzz_sentinel_pkey",
  "create extension if not exists pg_trgm",
  "comment on table fuzz_sentinel is 'fuzzed'",
  "grant all on fuzz_sentinel to public",
  "alter sequence fuzz_sentinel_seq restart with 50",
  "merge into fuzz_sentinel t using (select 1 as id) s on t.id = s.id when matched then delete",
  "with d as (delete from fuzz_sentinel returning id) select count(*) from d",
  "select nextval('fuzz_sentinel_seq')",
  "select setval('fuzz_sentinel_seq', 99)",
  "select lo_create(0)",
  "call fuzz_sentinel_touch()",
  "do $$ begin delete from fuzz_sentinel; end $$",
  "do $body$ begin perform set_config('transaction_read_only', 'off', true); update fuzz_sentinel set note = 'fuzzed'; end $body$",
  "copy fuzz_sentinel (id) from program 'echo 1001'",
  "reindex table fuzz_sentinel",
];

/**
 * Statements that change the session, leave the read-only transaction, take locks, or move data
 * to or from the client.
 */
const sessionEffects = [
  "commit",
  "COMMIT",
  "end",
  "rollback",
  "abort",
  "begin",
  "start transaction read write",
  "commit and chain",
  "savepoint fuzz",
  "release savepoint fuzz",
  "rollback to savepoint fuzz",
  "set transaction read write",
  "set session characteristics as transaction read write",
  "set default_transaction_read_only = off",
  "set local statement_timeout = 0",
  "reset all",
  "set role none",
  "reset role",
  "reset session authorization",
  "select set_config('role', 'none', true)",
  "select set_config('transaction_read_only', 'off', true)",
  "select set_config('default_transaction_read_only', 'off', false)",
  "select pg_advisory_lock(42)",
  "select pg_notify('fuzz', 'x')",
  "listen fuzz",
  "notify fuzz",
  "unlisten *",
  "select pg_cancel_backend(pg_backend_pid())",
  "select pg_terminate_backend(pg_backend_pid())",
  "declare fuzz_cursor cursor with hold for select * from fuzz_sentinel",
  "fetch all from fuzz_cursor",
  "discard all",
  "lock table fuzz_sentinel in access exclusive mode",
  "select * from fuzz_sentinel for update",
  "prepare fuzz_write as delete from fuzz_sentinel",
  "execute fuzz_write",
  "analyze fuzz_sentinel",
  "copy fuzz_sentinel from stdin",
  "copy (select 1) to stdout",
];

/**
 * Functions that run SQL given as text: PostgreSQL runs it read-only (they are not volatile), but a
 * read-only caller may not name them.
 */
const sqlInText = [
  "select query_to_xml('delete from fuzz_sentinel returning id', true, true, '')",
  "select ts_rewrite('a'::tsquery, 'with d as (delete from fuzz_sentinel returning 1) select ''a''::tsquery, ''b''::tsquery from d')",
  "select ts_stat('select to_tsvector(note) from fuzz_sentinel')",
  "select query_to_xml_and_xmlschema('select * from fuzz_sentinel', true, true, '')",
];

/** Forbidden names spelt so that no word of them shows: Unicode escapes, with and without UESCAPE. */
const unicodeSpellings = [
  `select U&"\\0070g_read_file"('/etc/hostname')`,
  `select U&"set\\005fconfig"('transaction_read_only', 'off', true)`,
  `select U&"!0070g_read_file" UESCAPE '!'('/etc/hostname')`,
  `select U&"set#005fconfig" uescape '#'('role', 'none', true)`,
  `delete from U&"fuzz\\005fsentinel"`,
  `delete from U&"fuzz!005fsentinel" UESCAPE '!'`,
  `select U&'\\0027'`,
  `select U&'!0027' UESCAPE '!'`,
  `select U&'\\+000027'`,
  `select U&'\\D83D\\DCA5'`,
  `select U&'\\'' UESCAPE ''''`,
  `select U& 'x'`,
  `select u&"\\0064elete"`,
];

/** Ways to spell EXPLAIN ANALYZE (without the EXPLAIN keyword), which runs the statement. */
const analyzeSpellings = [
  "analyze",
  "ANALYZE",
  "analyse",
  "ANALYSE",
  "analyze verbose",
  "(analyze)",
  "(ANALYZE true)",
  "(analyze 1)",
  "(analyze on)",
  "(analyze yes)",
  "(analyze 'true')",
  "(analyse)",
  "(FORMAT json, ANALYZE)",
  "(format text, buffers, analyze)",
  "(analyze, buffers)",
  "(verbose, analyze true)",
  "( analyze\n)",
  "(analyze /* x */)",
  '("analyze")',
  "(analyze false)",
  "(analyze --\r)",
  "/**/analyze",
];

/** What may end a `--` comment: PostgreSQL ends one at \r or \n, and at nothing else. */
const commentEnds = ["\r", "\n", "\r\n", "\f", "\v", "\u2028", "\u0085", ""];
/** White space as PostgreSQL reads it, and characters it does not. */
const spaces = [" ", "\t", "\n", "\r", "\f", "\v", "\u00a0", "/**/", "--x\n", "--x\r"];

const read = fc.constantFrom(...reads);
const payload = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...writes) },
  { weight: 2, arbitrary: fc.constantFrom(...sessionEffects) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...sessionEffects), fc.constantFrom(...writes))
      .map(([change, write]) => `${change}; ${write}`),
  },
  { weight: 1, arbitrary: fc.constantFrom(...unicodeSpellings) },
  { weight: 1, arbitrary: fc.constantFrom(...sqlInText) },
);
/** A read that is answered whole (simple protocol): where a second statement would run too. */
const wholeRead = fc.constantFrom(
  "explain select 1",
  "show search_path",
  "SHOW all",
  "explain (format json) select 1",
);
const anyRead = fc.oneof(read, wholeRead);

/** A read followed by a payload, with something between them that a lexer may misjudge. */
const smuggled: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(anyRead, payload).map(([r, p]) => `${r}; ${p}`),
  fc
    .tuple(anyRead, fc.constantFrom(...commentEnds), fc.string({ maxLength: 4 }), payload)
    .map(([r, end, junk, p]) => `${r} --${junk.replace(/[\r\n]/g, "")}${end}; ${p}`),
  fc
    .tuple(anyRead, fc.constantFrom(...commentEnds), payload)
    .map(([r, end, p]) => `${r} --${end}; commit; ${p}`),
  fc
    .tuple(
      anyRead,
      fc.constantFrom(
        "/* /* */ ; %s */",
        "/* */ */ ; %s",
        "/*/ ; %s */",
        "/* /* */ */ ; %s",
        "/* * / ; %s",
        "/*/**/ ; %s */ */",
        "/* --\n */ ; %s",
        "-- /*\n ; %s */",
        "/* ' */ ; %s ; /* ' */",
        "/* $$ */ ; %s ; /* $$ */",
      ),
      payload,
    )
    .map(([r, form, p]) => `${r} ${form.replace("%s", p)}`),
  fc
    .tuple(
      fc.constantFrom(
        "select $$ $$; %s; select $$ $$",
        "select $a$ $$ $a$; %s",
        "select 1 as x$$; %s; select 1 as y$$",
        "select $fuzz$ %s $fuzz$",
        "select $a$ ; %s ; $b$ $a$",
        "select $a$ ; %s ; $b$",
        "select $Tag$ ; %s ; $tag$ $Tag$",
        "select $_$ ; %s ; $_$",
        "select $ä$ ; %s ; $ä$",
        "select $1$ ; %s",
        "select $1 ; %s",
        "select $$ ; %s",
        "select $a$$b$ ; %s ; $b$$a$",
        "do $a$ begin perform $b$ $a$; %s; select $b$; end $a$",
      ),
      payload,
    )
    .map(([form, p]) => form.replace("%s", p)),
  fc
    .tuple(
      fc.constantFrom(
        "select '\\'; %s; select '\\'",
        "select E'\\''; %s; select E'\\''",
        "select e'\\\\'; %s",
        "select E'\\x27'; %s; select E'\\x27'",
        "select E'\\047'; %s; select E'\\047'",
        "select E'\\u0027'; %s; select E'\\u0027'",
        "select E '\\''; %s; select '\\''",
        "select U&'\\0027'; %s; select U&'\\0027'",
        "select U&'!0027' UESCAPE '!'; %s",
        "select 'it''s'; %s",
        "select N'x'; %s",
        "select X'1F'; %s",
        "select B'101'; %s",
        "select 'a'\n'b'; %s",
        "select 'unterminated; %s",
        "select E'unterminated\\'; %s",
        'select 1 as "%s"',
        'select 1 as "a"";%s;"""',
        'select 1 as U&"\\0022"; %s',
        'select 1 as "unterminated; %s',
      ),
      payload,
    )
    .map(([form, p]) => form.replace("%s", p)),
);

/** `EXPLAIN ANALYZE …` in any spelling, of a read or a write. */
const explainAnalyze = fc
  .tuple(fc.constantFrom(...analyzeSpellings), fc.oneof(read, fc.constantFrom(...writes)))
  .map(([spelling, statement]) => `explain ${spelling} ${statement}`);

/** Fragments a token soup is made of: every opener and closer, separators and payloads. */
const fragment = fc.oneof(
  fc.constantFrom(
    ";",
    "--",
    "\r",
    "\n",
    "\f",
    "\v",
    "/*",
    "*/",
    "'",
    '"',
    "$$",
    "$a$",
    "E'",
    "\\",
    "\\'",
    "U&'",
    'U&"',
    " UESCAPE '!'",
    "!0027",
    "\\0027",
    "(",
    ")",
    "::",
    "$1",
    "x$",
  ),
  read,
  payload,
);
const soup = fc.array(fragment, { minLength: 2, maxLength: 10 }).map((parts) => parts.join(" "));

/** Many nested comment openers (PostgreSQL's lexer is quadratic on them): small, a few KiB. */
const commentBomb = fc
  .tuple(fc.integer({ min: 50, max: 2000 }), fc.constantFrom(0, 0.5, 1), fc.option(payload, { nil: "" }))
  .map(([depth, closed, p]) => {
    const closers = "*/".repeat(Math.floor(depth * closed));
    return `select 1 ${"/*".repeat(depth)} ${p} ${closers} ; ${p}`;
  });

/** Many statements in one text. */
const statementBomb = fc
  .tuple(fc.integer({ min: 10, max: 300 }), read)
  .map(([count, statement]) => Array.from({ length: count }, () => statement).join(";"));

/** One statement whose keywords are separated by other white space, or cased otherwise. */
const respelled = fc
  .tuple(fc.oneof(read, payload, explainAnalyze, smuggled), fc.constantFrom(...spaces), fc.boolean())
  .map(([statement, space, upper]) => {
    const spaced = statement.replace(/ /g, space);
    return upper ? spaced.toUpperCase() : spaced;
  });

/**
 * SQL a read-only caller sends. `long` asks the sender to pad it to the HTTP body limit (the SQL
 * length cap is behind it): `fill` repeated, written between `head` and `tail`, `delta` bytes from
 * the limit.
 */
export type FuzzSql = string | { head: string; fill: string; tail: string; delta: number };

/** Texts of nearly 1 MiB: long comments, strings, white space and identifiers, closed or not. */
const long: fc.Arbitrary<FuzzSql> = fc.record({
  head: fc.constantFrom(
    "select 1 --",
    "select '",
    "select 1",
    "select $$",
    "select 1 /*",
    'select 1 as "',
    "/*",
  ),
  fill: fc.constantFrom("x", " ", "é"),
  tail: fc.constantFrom("", "'", "$$", "*/", '"', "\n; delete from fuzz_sentinel"),
  delta: fc.constantFrom(-64, -1, 0, 1),
});

export const fuzzSql: fc.Arbitrary<FuzzSql> = fc.oneof(
  { weight: 15, arbitrary: read },
  { weight: 20, arbitrary: payload },
  { weight: 50, arbitrary: smuggled },
  { weight: 15, arbitrary: explainAnalyze },
  { weight: 15, arbitrary: soup },
  { weight: 15, arbitrary: respelled },
  { weight: 5, arbitrary: commentBomb },
  { weight: 5, arbitrary: statementBomb },
  { weight: 5, arbitrary: fc.constantFrom(...unicodeSpellings) },
  { weight: 5, arbitrary: fc.constantFrom(...analyzeSpellings.map((s) => `${s} delete from fuzz_sentinel`)) },
  { weight: 5, arbitrary: fc.constantFrom("", " ", ";", ";;", "--", "/*", "$$", "'", '"', "\\", "U&") },
  { weight: 1, arbitrary: long },
);

/**
 * The text of `sql` for a body built by `bodyOf`: a long form is padded so that the whole body is
 * `delta` bytes from `limit`.
 */
export function sqlText(sql: FuzzSql, limit: number, bodyOf: (text: string) => string): string {
  if (typeof sql === "string") {
    return sql;
  }
  const framing = Buffer.byteLength(bodyOf(`${sql.head}${sql.tail}`));
  const room = limit + sql.delta - framing;
  const fillBytes = Buffer.byteLength(sql.fill);
  return `${sql.head}${sql.fill.repeat(Math.max(0, Math.floor(room / fillBytes)))}${sql.tail}`;
}
