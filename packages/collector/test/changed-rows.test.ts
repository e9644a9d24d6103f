import { ensureChangedRowsTables } from "@dbmon/datastore";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangedRowsMemory } from "../src/changed-rows.js";
import { probeRegistry } from "../src/index.js";
import { runProbeOn } from "../src/probe-run.js";
import type { ProbeDefinition, ProbeRow } from "../src/probes/types.js";
import { dropExpiredPartitions } from "../src/retention.js";
import { ensureMetricsTables, PartitionManager, storeProbeRun } from "../src/storage.js";
import {
  createMonitoredDatabase,
  insertConnection,
  MONITORED_SERVER_URL,
  type MonitoredDatabase,
  openTestEnvironment,
  quietLogger,
  type TestEnvironment,
} from "./support.js";

// Changed-rows storage on real statistics: the same collected runs stored in full (no memory: every
// run a keyframe, as every row was stored before) under one connection and as changed rows under
// another must read back identically through `metrics.<probe>`, with far fewer rows stored.

// Every change stored at once here: dbmon's own footprint (catalogs, its statements), held back for
// up to an hour by design, has a test of its own below.
const probes = probeRegistry
  .filter((probe) => probe.changedRows)
  .map((probe) => ({ ...probe, changedRows: { key: probe.changedRows?.key ?? [] } }));
const MINUTE = 60_000;
// A Tuesday: every run of the first tests lies in the week of Monday 2026-11-23.
const BASE = Date.parse("2026-11-24T10:00:00Z");

let env: TestEnvironment;
let monitored: MonitoredDatabase;
let target: postgres.Sql;
let partitions: PartitionManager;
let full: number;
let changes: number;
let memory: ChangedRowsMemory;
let serverVersionNum: number;

beforeAll(async () => {
  env = await openTestEnvironment();
  monitored = await createMonitoredDatabase(MONITORED_SERVER_URL, async (sql) => {
    await sql.unsafe(`
      create table orders (id serial primary key, note text);
      create table customers (id serial primary key, name text);
      create index customers_name on customers (name);
      create table archive (id int);
      create sequence tickets;
      create function touch() returns int language sql as 'select 1';`);
  });
  target = postgres(monitored.url, { max: 1, onnotice: () => {} });
  await target`set track_functions = 'all'`;
  const [version] = await target<{ v: number }[]>`select current_setting('server_version_num')::int as v`;
  serverVersionNum = version?.v ?? 0;
  const { sql } = env.datastore;
  full = await insertConnection(env, { database_name: monitored.name, is_monitored: false, name: "full" });
  changes = await insertConnection(env, {
    database_name: monitored.name,
    is_monitored: false,
    name: "changes",
  });
  await ensureMetricsTables(sql, probes);
  partitions = new PartitionManager(sql, probes);
  memory = new ChangedRowsMemory();
});

afterAll(async () => {
  await target?.end();
  await monitored?.drop();
  await env?.close();
});

async function collect(probe: ProbeDefinition): Promise<ProbeRow[]> {
  const rows = await runProbeOn(probe, (text) => target.unsafe(text) as Promise<ProbeRow[]>, {
    serverVersionNum,
    isLocalHost: true,
  });
  return (rows ?? []).map((row) => ({ ...row, database_name: monitored.name }));
}

/** One run of every probe stored under both connections; answers the rows stored per probe. */
async function storeRun(at: Date, using = memory): Promise<Map<string, { full: number; changes: number }>> {
  const stored = new Map<string, { full: number; changes: number }>();
  for (const probe of probes) {
    const rows = await collect(probe);
    await partitions.ensureFor(probe, at);
    const a = await storeProbeRun(env.datastore.sql, quietLogger, probe, full, at, rows);
    const b = await storeProbeRun(env.datastore.sql, quietLogger, probe, changes, at, rows, undefined, using);
    stored.set(probe.name, { full: a.stored, changes: b.stored });
  }
  return stored;
}

const at = (minutes: number) => new Date(BASE + minutes * MINUTE);

/** A node of a JSON query plan. */
type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Every run of a probe as the readers see it, without the connection. */
async function read(probe: string, connectionId: number): Promise<unknown[]> {
  const rows = await env.datastore.sql.unsafe(
    `select * from metrics."${probe}" where connection_id = $1 order by collected_at, database_name`,
    [connectionId],
  );
  return rows
    .map(({ connection_id: _, ...row }) => row)
    .sort((a, b) => {
      const x = JSON.stringify(a);
      const y = JSON.stringify(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
}

async function expectSameReads(): Promise<void> {
  for (const probe of probes) {
    const expected = await read(probe.name, full);
    expect(await read(probe.name, changes), probe.name).toEqual(expected);
  }
}

async function storedRows(probe: string, connectionId: number): Promise<number> {
  const [row] = await env.datastore.sql.unsafe<{ n: number }[]>(
    `select count(*)::int as n from metrics."${probe}_rows" where connection_id = $1`,
    [connectionId],
  );
  return row?.n ?? 0;
}

describe("changed-rows storage", () => {
  it("stores every object on the first run, then only the changed ones, and reads every run in full", async () => {
    const first = await storeRun(at(0));
    expect(first.get("pg_stat_all_tables")?.changes).toBe(first.get("pg_stat_all_tables")?.full);
    expect(first.get("pg_stat_all_tables")?.full).toBeGreaterThan(50);
    await target`insert into orders (note) select 'n' from generate_series(1, 10)`;
    await target`select count(*) from customers where name = 'x'`;
    await target`select touch()`;
    await target`select nextval('tickets')`;
    // This session's counts reach the statistics views at its next flush (PostgreSQL 15+).
    await target`select pg_stat_force_next_flush()`;
    await storeRun(at(5));
    const quiet = await storeRun(at(10));
    await storeRun(at(15));
    await expectSameReads();
    // A quiet run stores the few catalogs the probes' own queries read, not the whole database.
    for (const probe of ["pg_stat_all_tables", "pg_stat_all_indexes"]) {
      const counts = quiet.get(probe);
      expect(counts?.changes, probe).toBeLessThan((counts?.full ?? 0) / 4);
      expect(await storedRows(probe, changes), probe).toBeLessThan((await storedRows(probe, full)) / 2);
    }
    // The changed table is among the rows stored after the insert.
    const [orders] = await env.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from metrics.pg_stat_all_tables_rows
      where connection_id = ${changes} and relname = 'orders' and collected_at = ${at(5).toISOString()}`;
    expect(orders?.n).toBe(1);
  });

  it("a dropped object disappears from the runs after its drop, not from those before", async () => {
    await target`drop table archive`;
    await storeRun(at(20));
    await expectSameReads();
    const runs = await env.datastore.sql<{ collected_at: Date; n: number }[]>`
      select collected_at, count(*) filter (where relname = 'archive')::int as n
      from metrics.pg_stat_all_tables where connection_id = ${changes} group by collected_at order by collected_at`;
    expect(runs.map((row) => row.n)).toEqual([1, 1, 1, 1, 0]);
  });

  it("a counter reset is stored as the changed rows it makes", async () => {
    await target`select pg_stat_reset()`;
    await storeRun(at(25));
    await storeRun(at(30));
    await expectSameReads();
    const [orders] = await env.datastore.sql<{ n_tup_ins: string }[]>`
      select n_tup_ins::text from metrics.pg_stat_all_tables
      where connection_id = ${changes} and relname = 'orders' and collected_at = ${at(25).toISOString()}`;
    expect(orders?.n_tup_ins).toBe("0");
  });

  it("a restarted collector (nothing remembered) stores every row on its first run", async () => {
    const restarted = new ChangedRowsMemory();
    const first = await storeRun(at(35), restarted);
    for (const probe of probes) {
      expect(first.get(probe.name)?.changes, probe.name).toBe(first.get(probe.name)?.full);
    }
    const second = await storeRun(at(40), restarted);
    expect(second.get("pg_stat_all_tables")?.changes).toBeLessThan(
      second.get("pg_stat_all_tables")?.full ?? 0,
    );
    memory = restarted;
    await expectSameReads();
  });

  it("a collector whose previous run is not the newest stored (another stored since) stores every row", async () => {
    const other = new ChangedRowsMemory();
    // The other collector takes the connection over: nothing remembered, a keyframe.
    await storeRun(at(45), other);
    // The first one gets it back, remembering its run of 40 minutes: not the newest, so a keyframe.
    const back = await storeRun(at(50), memory);
    for (const probe of probes) {
      expect(back.get(probe.name)?.changes, probe.name).toBe(back.get(probe.name)?.full);
    }
    await expectSameReads();
  });

  it("starts every week with a keyframe, so dropping an expired week loses no later run", async () => {
    // Monday of the next week: a keyframe though nothing changed.
    const nextWeek = new Date(Date.parse("2026-11-30T00:02:00Z"));
    const first = await storeRun(nextWeek);
    expect(first.get("pg_stat_all_tables")?.changes).toBe(first.get("pg_stat_all_tables")?.full);
    const second = await storeRun(new Date(nextWeek.getTime() + 5 * MINUTE));
    expect(second.get("pg_stat_all_tables")?.changes).toBeLessThan(
      second.get("pg_stat_all_tables")?.full ?? 0,
    );
    // The first week expires (seven days of retention after its end): its partitions go, both
    // tables alike, and the next week still reads in full.
    const dropped = await dropExpiredPartitions(
      env.datastore.sql,
      probes,
      new Date(Date.parse("2026-12-07T12:00:00Z")),
      quietLogger,
    );
    expect(dropped).toContain("pg_stat_all_tables_rows_20261123");
    expect(dropped).toContain("pg_stat_all_tables_runs_20261123");
    await expectSameReads();
    const [left] = await env.datastore.sql<{ runs: number; rows: number }[]>`
      select count(distinct collected_at)::int as runs, count(*)::int as rows
      from metrics.pg_stat_all_tables where connection_id = ${changes}`;
    expect(left?.runs).toBe(2);
    expect(left?.rows).toBe(2 * (first.get("pg_stat_all_tables")?.full ?? 0));
  });

  it("statements: rows naming one object twice are stored in full, and an empty run stores no run", async () => {
    const statements = probes.find((probe) => probe.name === "pg_stat_statements") as ProbeDefinition;
    const { sql } = env.datastore;
    const row = (queryid: string, calls: number) => ({
      database_name: monitored.name,
      userid: "10",
      dbid: "1",
      queryid,
      toplevel: true,
      query: `select ${queryid}`,
      calls: String(calls),
    });
    const local = new ChangedRowsMemory();
    const when = (minutes: number) => new Date(Date.parse("2026-12-01T10:00:00Z") + minutes * MINUTE);
    await partitions.ensureFor(statements, when(0));
    const store = (minutes: number, rows: ProbeRow[]) =>
      storeProbeRun(sql, quietLogger, statements, changes, when(minutes), rows, undefined, local);
    expect((await store(0, [row("1", 1), row("2", 1)])).stored).toBe(2);
    expect((await store(5, [row("1", 1), row("2", 2)])).stored).toBe(1);
    expect((await store(10, [row("1", 1), row("1", 1)])).stored).toBe(2);
    expect((await store(15, [row("1", 1), row("1", 1)])).stored).toBe(2);
    expect((await store(20, [])).stored).toBe(0);
    expect((await store(25, [row("1", 3)])).stored).toBe(1);
    const read = await sql<{ minute: number; queryid: string; calls: string }[]>`
      select (extract(epoch from collected_at - ${when(0).toISOString()}::timestamptz) / 60)::int as minute,
        queryid::text, calls::text
      from metrics.pg_stat_statements where connection_id = ${changes} and collected_at >= ${when(0).toISOString()}
      order by 1, 2, 3`;
    expect(read.map((r) => `${r.minute}:${r.queryid}:${r.calls}`)).toEqual([
      "0:1:1",
      "0:2:1",
      "5:1:1",
      "5:2:2",
      "10:1:1",
      "10:1:1",
      "15:1:1",
      "15:1:1",
      "25:1:3",
    ]);
  });

  it("statements that come and go after a keyframe are stored as added and gone rows, until more were dropped than are left", async () => {
    const statements = probes.find((probe) => probe.name === "pg_stat_statements") as ProbeDefinition;
    const { sql } = env.datastore;
    const row = (queryid: number, calls = 1) => ({
      database_name: monitored.name,
      userid: "10",
      dbid: "1",
      queryid: String(queryid),
      toplevel: true,
      query: `select ${queryid}`,
      calls: String(calls),
    });
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const local = new ChangedRowsMemory();
    const when = (minutes: number) => new Date(Date.parse("2026-12-03T10:00:00Z") + minutes * MINUTE);
    await partitions.ensureFor(statements, when(0));
    const runs: [number, ProbeRow[]][] = [
      [0, range(1, 20).map((id) => row(id))],
      // q3 evicted, q21 new: one gone row and one added row.
      [5, [...range(1, 20).filter((id) => id !== 3), 21].map((id) => row(id))],
      // q3 back (added again), q21 called again (changed).
      [10, [...range(1, 20).map((id) => row(id)), row(21, 2)]],
      // Nothing changed.
      [15, [...range(1, 20).map((id) => row(id)), row(21, 2)]],
      // Ten statements replaced: ten gone and ten added rows, 11 dropped since the keyframe.
      [
        20,
        [...range(11, 21).map((id) => row(id, id === 21 ? 2 : 1)), ...range(101, 110).map((id) => row(id))],
      ],
      // Six more dropped: 17 since the keyframe, more than the run's 15 objects and than 16.
      [
        25,
        [...range(17, 21).map((id) => row(id, id === 21 ? 2 : 1)), ...range(101, 110).map((id) => row(id))],
      ],
      // After that keyframe, one dropped again.
      [30, [...range(17, 20).map((id) => row(id)), ...range(101, 110).map((id) => row(id))]],
    ];
    const stored: number[] = [];
    for (const [minute, rows] of runs) {
      stored.push(
        (await storeProbeRun(sql, quietLogger, statements, changes, when(minute), rows, undefined, local))
          .stored,
      );
    }
    expect(stored).toEqual([20, 2, 2, 0, 20, 15, 1]);
    const read = await sql<{ minute: number; keyframe: number; queryid: string; calls: string }[]>`
      select (extract(epoch from s.collected_at - ${when(0).toISOString()}::timestamptz) / 60)::int as minute,
        (extract(epoch from r.keyframe_at - ${when(0).toISOString()}::timestamptz) / 60)::int as keyframe,
        s.queryid::text, s.calls::text
      from metrics.pg_stat_statements s
      join metrics.pg_stat_statements_runs r using (connection_id, database_name, collected_at)
      where s.connection_id = ${changes} and s.collected_at >= ${when(0).toISOString()}`;
    const text = (minute: number, queryid: unknown, calls: unknown) =>
      `${minute}:${String(queryid)}:${String(calls)}`;
    const sorted = (list: string[]) => [...list].sort();
    expect(sorted(read.map((r) => text(r.minute, r.queryid, r.calls)))).toEqual(
      sorted(runs.flatMap(([minute, rows]) => rows.map((r) => text(minute, r.queryid, r.calls)))),
    );
    expect([...new Set(read.map((r) => `${r.minute}@${r.keyframe}`))].sort()).toEqual(
      ["0@0", "5@0", "10@0", "15@0", "20@0", "25@25", "30@25"].sort(),
    );
    // One statement's history narrows the objects read through the view, added ones included.
    const history = await sql<{ calls: string }[]>`
      select calls::text from metrics.pg_stat_statements
      where connection_id = ${changes} and queryid = 21 and collected_at >= ${when(0).toISOString()}
      order by collected_at`;
    expect(history.map((r) => r.calls)).toEqual(["1", "2", "2", "2", "2"]);
  });

  it("holds back dbmon's own footprint for up to an hour, but not a catalog's writes nor anything else", async () => {
    const catalogue = (name: string) => probeRegistry.find((probe) => probe.name === name) as ProbeDefinition;
    const tables = catalogue("pg_stat_all_tables");
    const statements = catalogue("pg_stat_statements");
    const { sql } = env.datastore;
    const local = new ChangedRowsMemory();
    const when = (minutes: number) => new Date(Date.parse("2026-12-02T10:00:00Z") + minutes * MINUTE);
    const table = (schemaname: string, relname: string, seqScan: number, deadTuples: number) => ({
      database_name: monitored.name,
      schemaname,
      relname,
      seq_scan: String(seqScan),
      n_dead_tup: String(deadTuples),
    });
    const statement = (queryid: string, query: string, calls: number) => ({
      database_name: monitored.name,
      userid: "10",
      dbid: "1",
      queryid,
      toplevel: true,
      query,
      calls: String(calls),
    });
    const own = "/* dbmon collector: pg_stat_database */ select datname from pg_stat_database";
    await partitions.ensureFor(tables, when(0));
    await partitions.ensureFor(statements, when(0));
    const store = async (minutes: number, scans: number, dead: number) => {
      const storedTables = await storeProbeRun(
        sql,
        quietLogger,
        tables,
        changes,
        when(minutes),
        [
          table("pg_catalog", "pg_class", scans, 0),
          table("pg_catalog", "pg_statistic", 1, dead),
          table("public", "orders", scans, 0),
        ],
        undefined,
        local,
      );
      const storedStatements = await storeProbeRun(
        sql,
        quietLogger,
        statements,
        changes,
        when(minutes),
        [statement("1", own, scans), statement("2", "select * from orders", scans)],
        undefined,
        local,
      );
      return [storedTables.stored, storedStatements.stored];
    };
    // The first run stores everything; then only the user table and the user's statement, whose
    // counters move at every run, while the catalog's scans and dbmon's own statement wait.
    expect(await store(0, 1, 0)).toEqual([3, 2]);
    expect(await store(5, 2, 0)).toEqual([1, 1]);
    expect(await store(10, 3, 0)).toEqual([1, 1]);
    // A catalog's dead tuples (what alerts and health checks read) are stored at once.
    expect(await store(15, 4, 5)).toEqual([2, 1]);
    // An hour after their last stored row, the held-back rows are stored with their newest values.
    expect(await store(60, 5, 5)).toEqual([2, 2]);
    const read = await sql<{ minute: number; relname: string; seq_scan: string; n_dead_tup: string }[]>`
      select (extract(epoch from collected_at - ${when(0).toISOString()}::timestamptz) / 60)::int as minute,
        relname, seq_scan::text, n_dead_tup::text
      from metrics.pg_stat_all_tables
      where connection_id = ${changes} and collected_at >= ${when(0).toISOString()} and collected_at <= ${when(60).toISOString()}
      order by 1, 2`;
    expect(read.map((r) => `${r.minute}:${r.relname}:${r.seq_scan}:${r.n_dead_tup}`)).toEqual([
      "0:orders:1:0",
      "0:pg_class:1:0",
      "0:pg_statistic:1:0",
      "5:orders:2:0",
      "5:pg_class:1:0",
      "5:pg_statistic:1:0",
      "10:orders:3:0",
      "10:pg_class:1:0",
      "10:pg_statistic:1:0",
      "15:orders:4:0",
      "15:pg_class:1:0",
      "15:pg_statistic:1:5",
      "60:orders:5:0",
      "60:pg_class:5:0",
      "60:pg_statistic:1:5",
    ]);
  });

  it("an older version's full table becomes the rows table, each of its runs a keyframe", async () => {
    const { sql } = env.datastore;
    const columns = ["relname text", "n_live_tup bigint"];
    await sql.unsafe(`create schema upgrade_check`);
    await sql.unsafe(
      `create table upgrade_check.stats (connection_id integer not null, database_name text not null,
         collected_at timestamptz not null, ${columns.join(", ")}) partition by range (collected_at);
       create table upgrade_check.stats_20261123 partition of upgrade_check.stats
         for values from ('2026-11-23T00:00:00Z') to ('2026-11-30T00:00:00Z');
       insert into upgrade_check.stats values
         (${full}, 'a', '2026-11-24T10:00:00Z', 't1', 1), (${full}, 'a', '2026-11-24T10:00:00Z', 't2', 2),
         (${full}, 'a', '2026-11-24T10:05:00Z', 't1', 3), (${full}, 'b', '2026-11-24T10:05:00Z', 't1', 4)`,
    );
    await sql.begin((tx) =>
      ensureChangedRowsTables(tx, {
        schema: "upgrade_check",
        probe: "stats",
        columnDefinitions: [
          "connection_id integer not null references public.connections(id) on delete cascade",
          "database_name text not null",
          "collected_at timestamptz not null",
          ...columns,
        ],
        columns: ["relname", "n_live_tup"],
        key: ["relname"],
      }),
    );
    const rows = await sql<{ database_name: string; relname: string; n: number }[]>`
      select database_name, relname, n_live_tup::int as n from upgrade_check.stats
      order by collected_at, database_name, relname`;
    expect(rows.map((r) => `${r.database_name}:${r.relname}:${r.n}`)).toEqual([
      "a:t1:1",
      "a:t2:2",
      "a:t1:3",
      "b:t1:4",
    ]);
    const [partition] = await sql<{ name: string }[]>`
      select c.relname::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'upgrade_check.stats_rows'::regclass`;
    expect(partition?.name).toBe("stats_rows_20261123");
  });

  it("reads an object's newest row of a later run through the object index, not back through the runs", async () => {
    const start = Date.parse("2026-11-30T01:00:00Z");
    for (let run = 0; run < 10; run++) {
      await target`select count(*) from customers where name = 'y'`;
      await target`select pg_stat_force_next_flush()`;
      await storeRun(new Date(start + run * 5 * MINUTE));
    }
    const { sql } = env.datastore;
    // Without statistics on the new week's partitions yet, as in the hours after a week begins: the
    // planner then sees every index as about as good.
    const [plan] = await sql.unsafe<{ "QUERY PLAN": { Plan: PlanNode }[] }[]>(
      `explain (format json) select * from metrics.pg_stat_all_tables
       where connection_id = $1 and collected_at = $2`,
      [changes, new Date(start + 45 * MINUTE).toISOString()],
    );
    // Every scan of the rows table: the newest row of an object is found by its key in an index
    // (object_key an index condition), never by reading a run's rows and filtering on the key.
    const scans: PlanNode[] = [];
    const walk = (node: PlanNode) => {
      if (String(node["Relation Name"] ?? "").startsWith("pg_stat_all_tables_rows")) {
        scans.push(node);
      }
      for (const child of node.Plans ?? []) {
        walk(child);
      }
    };
    walk(plan?.["QUERY PLAN"][0]?.Plan ?? {});
    expect(scans.some((scan) => String(scan["Index Cond"]).includes("object_key"))).toBe(true);
    expect(scans.filter((scan) => String(scan.Filter ?? "").includes("object_key"))).toEqual([]);
  });
});
