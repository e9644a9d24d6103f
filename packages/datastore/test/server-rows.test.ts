import { readFile } from "node:fs/promises";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { collectsDatabase, migrationsFolder, readServerDirectory, serverAddress } from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";

// Server-wide rows are stored once per server, under its representative (migration 0029): they follow
// the representative when it is deleted, stops being monitored or moves, so that the server's history
// stays with the connections that remain.

let testDb: TestDatabase;
let sql: postgres.Sql;

beforeAll(async () => {
  testDb = await createTestDatabase();
  sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
  // A server-wide probe's table and a rollup table, as the collector creates them (unpartitioned here).
  await sql`create schema if not exists metrics`;
  await sql`create table metrics.pg_stat_activity (connection_id integer not null
    references connections(id) on delete cascade, collected_at timestamptz not null, pid integer)`;
  await sql`create table metrics.metric_rollups_5m (connection_id integer not null
    references connections(id) on delete cascade, database_name text not null, collected_at timestamptz not null,
    probe text not null, metric text not null, sample_count integer, sum double precision, min double precision,
    max double precision, last double precision, last_at timestamptz) partition by range (collected_at)`;
  await sql`create table metrics.metric_rollups_5m_all partition of metrics.metric_rollups_5m
    for values from ('2000-01-01') to ('2100-01-01')`;
});

afterAll(async () => {
  await sql?.end();
  await testDb?.drop();
});

async function register(
  name: string,
  host: string,
  database = "postgres",
  monitored = true,
): Promise<number> {
  const [row] = await sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_monitored)
    values (${name}, ${host}, 5432, ${database}, 'monitor', 'admin', ${monitored}) returning id`;
  return (row as { id: number }).id;
}

/** A run of the server stored under its representative, as the collector stores it. */
async function storeRun(representative: number, minute: number): Promise<void> {
  const at = new Date(Date.UTC(2026, 10, 20, 12, minute));
  await sql`insert into metrics.pg_stat_activity values (${representative}, ${at}, ${minute})`;
  await sql`insert into metrics.metric_rollups_5m (connection_id, database_name, collected_at, probe, metric, sample_count)
    values (${representative}, '', ${at}, 'pg_stat_activity', 'pid', 1)`;
  await sql`insert into probe_runs (connection_id, probe_name, last_run_at) values (${representative}, 'pg_stat_activity', ${at})
    on conflict (connection_id, probe_name) do update set last_run_at = excluded.last_run_at`;
}

/** Whose rows hold what, and what each connection reads through its server. */
async function state(ids: number[]) {
  const rows = await sql<{ connection_id: number; runs: number }[]>`
    select connection_id, count(*)::int as runs from metrics.pg_stat_activity group by 1 order by 1`;
  const rollups = await sql<{ connection_id: number }[]>`
    select distinct connection_id from metrics.metric_rollups_5m order by 1`;
  const runs = await sql<{ connection_id: number }[]>`
    select connection_id from probe_runs where probe_name = 'pg_stat_activity' order by 1`;
  const read: Record<number, number> = {};
  for (const id of ids) {
    const [count] = await sql<{ runs: number }[]>`
      select count(*)::int as runs from metrics.pg_stat_activity where connection_id = dbmon_server_connection(${id})`;
    read[id] = count?.runs ?? 0;
  }
  return {
    rows: rows.map((row) => [row.connection_id, row.runs]),
    rollups: rollups.map((row) => row.connection_id),
    runs: runs.map((row) => row.connection_id),
    read,
  };
}

describe("a server's rows when its representative changes", () => {
  beforeEach(async () => {
    await sql`delete from connections`;
  });

  it("are the lowest-id monitored connection's, read by every connection at the address", async () => {
    const first = await register("first", "db.test");
    const second = await register("second", "db.test", "app");
    const elsewhere = await register("elsewhere", "other.test");
    const representatives = await sql<{ connection_id: number; server_connection_id: number }[]>`
      select connection_id, server_connection_id from dbmon_connection_servers order by 1`;
    expect(representatives).toEqual([
      { connection_id: first, server_connection_id: first },
      { connection_id: second, server_connection_id: first },
      { connection_id: elsewhere, server_connection_id: elsewhere },
    ]);
    await sql`update connections set is_monitored = false where id = ${first}`;
    const [row] = await sql<{ id: number }[]>`select dbmon_server_connection(${first}) as id`;
    expect(row?.id).toBe(second);
  });

  it("move to the next connection when the representative is deleted, in the same transaction", async () => {
    const first = await register("first", "db.test");
    const second = await register("second", "db.test", "app");
    const third = await register("third", "db.test", "other");
    await storeRun(first, 1);
    await storeRun(first, 2);
    await sql`delete from connections where id = ${first}`;
    expect(await state([second, third])).toEqual({
      rows: [[second, 2]],
      rollups: [second],
      runs: [second],
      read: { [second]: 2, [third]: 2 },
    });
  });

  it("move when the representative stops being monitored, and back when it is monitored again", async () => {
    const first = await register("first", "db.test");
    const second = await register("second", "db.test", "app");
    await storeRun(first, 1);
    await sql`update connections set is_monitored = false where id = ${first}`;
    expect(await state([first, second])).toMatchObject({
      rows: [[second, 1]],
      read: { [first]: 1, [second]: 1 },
    });
    await storeRun(second, 2);
    await sql`update connections set is_monitored = true where id = ${first}`;
    expect(await state([first, second])).toEqual({
      rows: [[first, 2]],
      rollups: [first],
      runs: [first],
      read: { [first]: 2, [second]: 2 },
    });
  });

  it("stay with the old address's connections when the representative moves, and join the new one's", async () => {
    const first = await register("first", "db.test");
    const second = await register("second", "db.test", "app");
    const newcomer = await register("newcomer", "new.test");
    await storeRun(first, 1);
    await storeRun(newcomer, 2);
    await sql`update connections set host = 'new.test' where id = ${first}`;
    // db.test's history is second's now; at new.test, first (the lower id) represents the server.
    expect(await state([first, second, newcomer])).toEqual({
      rows: [
        [first, 1],
        [second, 1],
      ],
      rollups: [first, second],
      runs: [first, second],
      read: { [first]: 1, [second]: 1, [newcomer]: 1 },
    });
  });

  it("go with the last connection of a server, as its other rows do", async () => {
    const only = await register("only", "db.test");
    await storeRun(only, 1);
    await sql`delete from connections where id = ${only}`;
    expect(await state([])).toEqual({ rows: [], rollups: [], runs: [], read: {} });
  });

  it("are left alone for per-connection probes (not in server_wide_probes)", async () => {
    const first = await register("first", "db.test");
    const second = await register("second", "db.test", "app");
    await sql`insert into probe_runs (connection_id, probe_name, last_run_at) values (${first}, 'pg_settings', now())`;
    await sql`delete from connections where id = ${first}`;
    const runs =
      await sql`select 1 from probe_runs where connection_id = ${second} and probe_name = 'pg_settings'`;
    expect(runs).toHaveLength(0);
  });
});

describe("an installation from before, with a copy of the server's rows under every connection", () => {
  it("keeps the representative's rows and drops the copies (the migration's clean-up)", async () => {
    await sql`delete from connections`;
    const first = await register("first", "db.test");
    const second = await register("second", "db.test", "app");
    const alone = await register("alone", "other.test");
    // Inserted as an earlier version stored them; the trigger moves nothing on inserts of rows.
    for (const id of [first, second, alone]) {
      await storeRun(id, 1);
      await storeRun(id, 2);
    }
    const migration = await readFile(join(migrationsFolder, "0029_server_wide_rows.sql"), "utf8");
    const cleanUp = migration.split("--> statement-breakpoint").at(-1) ?? "";
    expect(cleanUp).toContain("DO $cleanup$");
    await sql.unsafe(cleanUp);
    expect(await state([first, second, alone])).toEqual({
      rows: [
        [first, 2],
        [alone, 2],
      ],
      rollups: [first, alone],
      runs: [first, alone],
      read: { [first]: 2, [second]: 2, [alone]: 2 },
    });
  });
});

describe("which connection's rows a reader reads for each database", () => {
  beforeAll(async () => {
    await sql`delete from connections`;
  });

  it("is the connection that collects it (collectsDatabase), whichever connection reads", async () => {
    const databases = ["postgres", "app", "other", "archive"];
    await register("main", "db.test", "postgres");
    await register("app", "db.test", "app");
    await register("app-again", "db.test", "app");
    await register("archive", "db.test", "archive", false);
    const connections = await sql<
      {
        id: number;
        name: string;
        host: string;
        hostaddr: string | null;
        port: number;
        database_name: string;
      }[]
    >`select id, name, host, hostaddr, port, database_name from connections order by id`;
    const directory = await readServerDirectory(sql);
    const names = new Map(connections.map((connection) => [connection.id, connection.name]));
    for (const reader of connections) {
      const rows = await sql.unsafe<{ database: string; source_id: number }[]>(
        `select d.database, s.source_id from unnest($2::text[]) as d(database)
         join dbmon_database_sources s on s.connection_id = $1
           and (d.database = s.own_database or (s.collects_unregistered and d.database <> all(s.registered)))
         order by d.database`,
        [reader.id, databases],
      );
      // Exactly one source per database: the reader's own database from itself, every other from a
      // monitored connection collecting it.
      const sources = Object.fromEntries(rows.map((row) => [row.database, names.get(row.source_id)]));
      expect(rows).toHaveLength(databases.length);
      expect(sources[reader.database_name]).toBe(reader.name);
      for (const row of rows.filter((candidate) => candidate.database !== reader.database_name)) {
        const source = connections.find((connection) => connection.id === row.source_id);
        expect(source && collectsDatabase(directory.get(serverAddress(source)), source, row.database)).toBe(
          true,
        );
      }
    }
  });
});
