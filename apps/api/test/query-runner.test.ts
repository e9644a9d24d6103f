import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ROWS, runStatements } from "../src/connections/query-runner.js";

describe("running statements on a monitored server", () => {
  let target: TestDatabase;
  let options: postgres.Options<Record<string, never>>;
  let admin: postgres.Sql;

  beforeAll(async () => {
    target = await createTestDatabase();
    const url = new URL(target.url);
    options = {
      host: url.hostname,
      port: Number(url.port),
      database: target.name,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
    admin = postgres(target.url, { max: 1, onnotice: () => {} });
    await admin`create table items (id int primary key, label text, seen timestamptz, meta jsonb)`;
    await admin`insert into items select g, 'item ' || g, '2026-01-02T03:04:05Z', '{"k": 1}' from generate_series(1, 600) g`;
  });
  afterAll(async () => {
    await admin.end();
    await target.drop();
  });

  it("returns columns and text rows, capped with a truncated flag", async () => {
    const run = await runStatements(
      options,
      ["select id, label, seen, meta from items order by id", "select 1 as one"],
      false,
    );
    expect(run.total_statements).toBe(2);
    const [first, second] = run.results;
    expect(first?.columns).toEqual(["id", "label", "seen", "meta"]);
    expect(first?.rows[0]).toEqual(["1", "item 1", "2026-01-02T03:04:05.000Z", '{"k":1}']);
    expect(first?.row_count).toBe(MAX_ROWS);
    expect(first?.truncated).toBe(true);
    expect(second).toEqual({
      query: "select 1 as one",
      columns: ["one"],
      rows: [["1"]],
      row_count: 1,
      truncated: false,
    });
  });

  it("lets the server refuse writes in read-only mode", async () => {
    const write = await runStatements(options, ["delete from items"], false);
    expect(write.results[0]?.error).toMatch(/^Query error: cannot execute DELETE in a read-only transaction/);
    expect((await admin`select count(*)::int as n from items`)[0]?.n).toBe(600);
  });

  it("runs confirmed writes, and stops and rolls back at the first error", async () => {
    const run = await runStatements(
      options,
      ["delete from items where id = 1", "select * from no_such_table", "delete from items where id = 2"],
      true,
    );
    expect(run.results).toHaveLength(2);
    expect(run.results[1]?.error).toMatch(/^Query error: relation "no_such_table" does not exist/);
    expect((await admin`select count(*)::int as n from items where id in (1, 2)`)[0]?.n).toBe(2);

    const ok = await runStatements(options, ["delete from items where id = 600"], true);
    expect(ok.results[0]?.error).toBeUndefined();
    expect((await admin`select count(*)::int as n from items`)[0]?.n).toBe(599);
  });
});
