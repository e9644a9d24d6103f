import {
  createTestDatabase,
  machinePostgresBinariesAvailable,
  startTlsPrimary,
  type TestDatabase,
} from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, runStatements } from "../src/sql/run.js";
import { parseSql } from "./sql-support.js";

describe("the SQL execution core", () => {
  let target: TestDatabase;
  let connection: postgres.Options<Record<string, never>>;
  let admin: postgres.Sql;

  beforeAll(async () => {
    target = await createTestDatabase();
    const url = new URL(target.url);
    connection = {
      host: url.hostname,
      port: Number(url.port),
      database: target.name,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
    admin = postgres(target.url, { max: 2, onnotice: () => {} });
    await admin`create table items (id int primary key, label text, seen timestamptz, meta jsonb)`;
    await admin`insert into items select g, 'item ' || g, '2026-01-02T03:04:05Z', '{"k": 1}' from generate_series(1, 600) g`;
  });
  afterAll(async () => {
    await admin.end();
    await target.drop();
  });

  const readOnly = async (sql: string, limits: Partial<typeof DEFAULT_LIMITS> = {}) =>
    runStatements({ connection, statements: await parseSql(sql), mode: "read_only", ...limits });

  it("returns columns and text rows, capped with a truncated flag", async () => {
    const run = await readOnly("select id, label, seen, meta from items order by id; select 1 as one");
    expect(run.total_statements).toBe(2);
    const [first, second] = run.results;
    expect(first?.columns).toEqual(["id", "label", "seen", "meta"]);
    expect(first?.rows[0]).toEqual(["1", "item 1", "2026-01-02T03:04:05.000Z", '{"k":1}']);
    expect(first?.row_count).toBe(DEFAULT_LIMITS.maxRows);
    expect(first?.truncated).toBe(true);
    expect(first?.notice).toBe("Result truncated: only the first 500 rows are shown");
    expect(second).toEqual({
      query: "select 1 as one",
      columns: ["one"],
      rows: [["1"]],
      row_count: 1,
      truncated: false,
    });
  });

  it("returns the rows of EXPLAIN and SHOW, which a cursor's portal does not yield", async () => {
    const run = await readOnly("explain select * from items; explain (format json) select 1; show work_mem");
    const [plan, json, setting] = run.results;
    expect(plan?.error).toBeUndefined();
    expect(plan?.columns).toEqual(["QUERY PLAN"]);
    expect(plan?.row_count).toBeGreaterThan(0);
    expect(String(plan?.rows[0]?.[0])).toMatch(/Scan on items/);
    expect(json?.row_count).toBe(1);
    expect(setting?.columns).toEqual(["work_mem"]);
    expect(setting?.rows).toHaveLength(1);
  });

  it("shows arrays as JSON, NULL elements as null", async () => {
    const run = await readOnly(
      "select array['a', null, 'NULL']::text[] as texts, '{{1,2},{3,4}}'::int4[] as grid",
    );
    expect(run.results[0]?.rows).toEqual([['["a",null,"NULL"]', "[[1,2],[3,4]]"]]);
  });

  it("lets the server refuse a write even if the parser were fooled (the transaction is READ ONLY)", async () => {
    const [single] = await parseSql("select 1");
    const smuggled = { ...(single as NonNullable<typeof single>), text: "delete from items" };
    const run = await runStatements({ connection, statements: [smuggled], mode: "read_only" });
    expect(run.results[0]?.error).toMatch(/^Query error: cannot execute DELETE in a read-only transaction/);
    expect((await admin`select count(*)::int as n from items`)[0]?.n).toBe(600);
  });

  it("refuses statements that are not reads in read-only mode, before anything runs", async () => {
    await expect(readOnly("select 1; delete from items; select 2")).rejects.toThrow(
      "Refused: a read-only query may not use the statement DELETE",
    );
    expect((await admin`select count(*)::int as n from items`)[0]?.n).toBe(600);
  });

  it("sends each statement alone, with the extended protocol (a text holding two is refused by the server)", async () => {
    const [single] = await parseSql("select 1");
    const smuggled = { ...(single as NonNullable<typeof single>), text: "select 1; select 2" };
    const run = await runStatements({ connection, statements: [smuggled], mode: "read_only" });
    expect(run.results[0]?.error).toMatch(/cannot insert multiple commands into a prepared statement/);
  });

  it("takes the snapshot before the first statement, so the transaction stays read-only", async () => {
    const [single] = await parseSql("select 1");
    const smuggled = { ...(single as NonNullable<typeof single>), text: "set transaction read write" };
    const run = await runStatements({ connection, statements: [smuggled], mode: "read_only" });
    expect(run.results[0]?.error).toMatch(/transaction read-write mode must be set before any query/);
  });

  it("runs writes in read-write mode, and stops and rolls back at the first error", async () => {
    const run = await runStatements({
      connection,
      statements: await parseSql(
        "delete from items where id = 1; select * from no_such_table; delete from items where id = 2",
      ),
      mode: "read_write",
    });
    expect(run.results).toHaveLength(2);
    expect(run.results[1]?.error).toMatch(/^Query error: relation "no_such_table" does not exist/);
    expect((await admin`select count(*)::int as n from items where id in (1, 2)`)[0]?.n).toBe(2);

    const ok = await runStatements({
      connection,
      statements: await parseSql("delete from items where id = 600"),
      mode: "read_write",
    });
    expect(ok.results[0]?.error).toBeUndefined();
    expect((await admin`select count(*)::int as n from items`)[0]?.n).toBe(599);
  });

  describe("limits a statement cannot lift", () => {
    it("refuses set_config and SET of limits in read-only mode", async () => {
      await expect(
        readOnly("select set_config('statement_timeout', '0', false); select pg_sleep(1e6)"),
      ).rejects.toThrow("Refused: a read-only query may not use the function set_config");
      await expect(readOnly("set statement_timeout = 0")).rejects.toThrow(
        "Refused: a read-only query may not use the statement SET",
      );
    });

    it("cancels a statement at the deadline even after it lifted statement_timeout", {
      timeout: 30_000,
    }, async () => {
      const run = await runStatements({
        connection,
        statements: await parseSql(
          "select set_config('statement_timeout', '0', false); set lock_timeout = 0; select pg_sleep(1e6)",
        ),
        mode: "read_write",
        deadlineMs: 1_500,
      });
      expect(run.results).toHaveLength(3);
      expect(run.results[2]?.error).toBe("Query error: stopped after the 1.5 s time limit");
      // The backend stopped: nothing of ours is still sleeping on the server.
      await expect
        .poll(
          async () =>
            (
              await admin`select count(*)::int as n from pg_stat_activity where query like '%pg_sleep(1e6)%' and pid <> pg_backend_pid()`
            )[0]?.n,
          { timeout: 5_000 },
        )
        .toBe(0);
    });

    it("cancels the running statement when the caller aborts", { timeout: 30_000 }, async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const run = await runStatements({
        connection,
        statements: await parseSql("select pg_sleep(60)"),
        mode: "read_only",
        signal: controller.signal,
      });
      expect(run.results[0]?.error).toBe("Query error: stopped because the request was cancelled");
    });

    it("stops at the deadline on a server that stalls a new session's first query, without crashing", {
      timeout: 30_000,
    }, async () => {
      // A lock on pg_type stalls the session's first catalog read. With the driver's own type
      // lookup, dropping that session rejected a promise nobody held: an unhandled rejection, which
      // ends the API process (and fails this file under vitest).
      const locker = await admin.reserve();
      try {
        await locker`begin`;
        await locker`lock table pg_catalog.pg_type in access exclusive mode`;
        const run = await runStatements({
          connection,
          statements: await parseSql("select 1"),
          mode: "read_only",
          deadlineMs: 1_000,
        });
        expect(run.results[0]?.error).toBe("Query error: stopped after the 1 s time limit");
        await new Promise((done) => setTimeout(done, 1_500));
      } finally {
        await locker`rollback`;
        locker.release();
      }
    });

    it("cuts long values at a character boundary and says so", async () => {
      const run = await readOnly(
        "select repeat('é', 100000) as long, 'short' as short from generate_series(1, 3)",
        {
          maxCellBytes: 1_001,
        },
      );
      const [result] = run.results;
      expect(result?.error).toBeUndefined();
      expect(result?.row_count).toBe(3);
      expect(result?.rows[0]).toEqual(["é".repeat(500), "short"]);
      expect(result?.truncated).toBe(true);
      expect(result?.notice).toBe("Result truncated: values longer than 1001 bytes are cut");
    });

    it("stops keeping rows when the result reaches its byte limit", async () => {
      const run = await readOnly("select repeat('x', 1000) from generate_series(1, 400)", {
        maxResultBytes: 100_000,
      });
      expect(run.results[0]?.row_count).toBe(100);
      expect(run.results[0]?.truncated).toBe(true);
      expect(run.results[0]?.notice).toBe("Result truncated: the values shown reached 100000 bytes");
    });

    it("never receives a huge value whole (repeat('x', 400000000), scaled down)", {
      timeout: 60_000,
    }, async () => {
      const before = process.memoryUsage().arrayBuffers;
      const run = await readOnly("select repeat('x', 40000000) from generate_series(1, 20); select 1");
      const [result] = run.results;
      expect(run.results).toHaveLength(1);
      expect(result?.truncated).toBe(true);
      expect(result?.error).toMatch(/^Query error: the result is too large \(more than 9437184 bytes/);
      // Buffers held for values stay near the limit, far below one 40 MB value.
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(40_000_000);
    });
  });

  describe("functions with side effects in read-only mode", () => {
    it("refuses pg_terminate_backend and leaves the target alive", async () => {
      const victim = await admin.reserve();
      try {
        const [{ pid }] = (await victim`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
        await expect(readOnly(`select pg_terminate_backend(${pid})`)).rejects.toThrow(
          "Refused: a read-only query may not use the function pg_terminate_backend",
        );
        expect((await victim`select 1 as alive`)[0]?.alive).toBe(1);
      } finally {
        victim.release();
      }
    });

    it.each([
      "select pg_reload_conf()",
      "select pg_read_file('postgresql.conf')",
      "select * from pg_ls_dir('.')",
      "select lo_export(1, '/tmp/dbmon-lo')",
      "select pg_catalog.pg_cancel_backend(1)",
      "select \"set_config\"('work_mem', '1GB', false)",
    ])("refuses %s", async (sql) => {
      await expect(readOnly(sql)).rejects.toThrow(/^Refused: a read-only query may not use the function /);
    });
  });
  it.skipIf(!machinePostgresBinariesAvailable())(
    "speaks TLS to a server that accepts it, and verifies its certificate where asked",
    { timeout: 60_000 },
    async () => {
      const server = await startTlsPrimary();
      try {
        const onServer = async (ssl: postgres.Options<Record<string, never>>["ssl"]) =>
          runStatements({
            connection: {
              host: "127.0.0.1",
              port: server.port,
              database: "postgres",
              username: "postgres",
              ssl,
            },
            statements: await parseSql("select ssl from pg_stat_ssl where pid = pg_backend_pid()"),
            mode: "read_only",
          });
        expect((await onServer("require")).results[0]?.rows).toEqual([["true"]]);
        expect((await onServer(false)).results[0]?.rows).toEqual([["false"]]);
        const verified = await onServer({ ca: server.certificate, servername: "localhost" });
        expect(verified.results[0]?.rows).toEqual([["true"]]);
        const wrongName = await onServer({ ca: server.certificate, servername: "db.example.com" });
        expect(wrongName.results[0]?.error).toMatch(/altnames|does not match/i);
      } finally {
        await server.remove();
      }
    },
  );
});
