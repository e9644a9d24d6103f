import {
  ChangedRowsMemory,
  ensureMetricsTables,
  PartitionManager,
  type ProbeDefinition,
  type ProbeRow,
  type ProbeSpec,
  probeRegistry,
  storeProbeRun,
} from "@dbmon/collector";
import type { Sql } from "@dbmon/datastore";
import { databaseUrl, MACHINE_POSTGRES_URL } from "@dbmon/datastore/testing";
import { evaluateHealthChecks, rollUpMetrics, rollupTables } from "@dbmon/monitoring";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addConnection, seedProbeDefaults } from "./monitoring-support.js";
import {
  buildTestApp,
  callBridgeTool,
  createUser,
  requestJson,
  type TestApp,
  withAlerter,
} from "./support.js";

// Issue 28: per-object statistics stored as changed rows must leave every reader's answer as it was.
// The same collected runs (real statistics of a database with activity between runs, and
// statements made up run by run) are stored in two datastores: `before` with every run in full in
// plain tables (the storage before changed rows), `after` as changed rows read through the views.
// Every reader must answer both alike.

const MINUTE = 60_000;
const RUNS = 12;
const NOW = new Date(Math.floor(Date.now() / MINUTE) * MINUTE);
const runAt = (run: number) => new Date(NOW.getTime() - (RUNS - run) * 10 * MINUTE + 7_000);
const clock = { now: () => NOW };

/**
 * A changed-rows probe storing every change at once: dbmon's own footprint (catalogs, its own
 * statements) is held back for up to an hour by design, which the collector's tests cover; here the
 * readers must answer exactly as from full tables.
 */
const withoutFootprint = (probe: ProbeDefinition): ProbeDefinition =>
  probe.changedRows ? { ...probe, changedRows: { key: probe.changedRows.key } } : probe;

/** The probes before changed rows: plain tables holding every row of every run. */
const fullProbes: ProbeDefinition[] = probeRegistry.map(({ changedRows: _, ...probe }) => probe);
const COLLECTED = [
  "pg_stat_all_tables",
  "pg_stat_all_indexes",
  "pg_statio_all_sequences",
  "pg_stat_user_functions",
  "pg_stat_database",
  "pg_settings",
];

let before: TestApp;
let after: TestApp;
let token: { before: string; after: string };
let connectionId: number;
let target: postgres.Sql;
let databaseName: string;
const memory = new ChangedRowsMemory();

async function prepare(t: TestApp, probes: readonly ProbeSpec[]): Promise<void> {
  await seedProbeDefaults(t);
  await ensureMetricsTables(t.datastore.sql, [...probes, ...rollupTables]);
  // Readers find a changed-rows probe's runs in `<probe>_runs` (probeRunsTable); over a plain table
  // holding every row, the runs are its distinct collections, as they read them before.
  for (const probe of probeRegistry.filter((spec) => spec.changedRows)) {
    if (probes.some((spec) => spec.name === probe.name && !spec.changedRows)) {
      await t.datastore.sql.unsafe(
        `create view metrics."${probe.name}_runs" as
           select distinct connection_id, database_name, collected_at from metrics."${probe.name}"`,
      );
    }
  }
  const partitions = new PartitionManager(t.datastore.sql, [...probes, ...rollupTables]);
  await partitions.ensureAround(NOW);
  await partitions.ensureAround(new Date(NOW.getTime() - 7 * 24 * 3600_000));
}

/** Statements made up for run `run`: a third of them called again at each run. */
function statements(run: number): ProbeRow[] {
  return Array.from({ length: 30 }, (_, i) => {
    const calls = i % 3 === 0 ? 10 + run * (i + 1) : 10 + i;
    return {
      database_name: databaseName,
      userid: "10",
      dbid: "5",
      queryid: String(1000 + i),
      toplevel: true,
      query: `select * from t${i} where id = $1`,
      calls: String(calls),
      total_exec_time: calls * (i + 1) * 1.5,
      mean_exec_time: (i + 1) * 1.5,
      rows: String(calls),
      shared_blks_hit: String(calls * 4),
      shared_blks_read: String(i),
    };
  });
}

async function collectRun(run: number): Promise<void> {
  const [version] = await target<{ v: number }[]>`select current_setting('server_version_num')::int as v`;
  const context = {
    query: (text: string) => target.unsafe(text) as Promise<ProbeRow[]>,
    serverVersionNum: version?.v ?? 0,
    systemStatsSchema: null,
    isLocalHost: true,
    includeSystemCatalogs: true,
    absent: () => {},
  };
  const at = runAt(run);
  for (const probe of probeRegistry) {
    let rows: ProbeRow[];
    if (probe.name === "pg_stat_statements") {
      rows = statements(run);
    } else if (COLLECTED.includes(probe.name) && probe.collect) {
      rows = ((await probe.collect(context)) ?? []).map((row) =>
        probe.scope === "database" ? { ...row, database_name: databaseName } : row,
      );
    } else {
      continue;
    }
    const plain = fullProbes.find((spec) => spec.name === probe.name) as ProbeDefinition;
    const a = await storeProbeRun(before.datastore.sql, silent, plain, connectionId, at, rows);
    const b = await storeProbeRun(
      after.datastore.sql,
      silent,
      withoutFootprint(probe),
      connectionId,
      at,
      rows,
      undefined,
      memory,
    );
    expect([a.failed, b.failed], probe.name).toEqual([0, 0]);
  }
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

beforeAll(async () => {
  before = await buildTestApp({ clock });
  after = await buildTestApp({ clock });
  await prepare(before, fullProbes);
  await prepare(after, probeRegistry);
  token = {
    before: (await createUser(before, "admin", { superuser: true })).token,
    after: (await createUser(after, "admin", { superuser: true })).token,
  };
  connectionId = await addConnection(before, "watched");
  expect(await addConnection(after, "watched")).toBe(connectionId);
  for (const t of [before, after]) {
    // Monitored, so the alerter evaluates it (no collector runs here).
    await t.datastore.sql`update connections set is_monitored = true where id = ${connectionId}`;
  }

  databaseName = `dbmon_changed_${Date.now().toString(36)}`;
  const admin = postgres(MACHINE_POSTGRES_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"`);
  await admin.end();
  target = postgres(databaseUrl(MACHINE_POSTGRES_URL, databaseName), { max: 1, onnotice: () => {} });
  await target.unsafe(`
    set track_functions = 'all';
    create table orders (id serial primary key, note text);
    create table customers (id serial primary key, name text);
    create index customers_name on customers (name);
    create table churn (id int, payload text) with (autovacuum_enabled = false);
    create table quiet (id int);
    create sequence tickets;
    create function touch() returns int language sql as 'select 1';`);
  await target`set track_functions = 'all'`;
  for (let run = 0; run < RUNS; run += 1) {
    if (run % 2 === 1) {
      await target`insert into orders (note) select 'n' from generate_series(1, ${run * 10})`;
      await target`select count(*) from customers where name = 'x'`;
      await target`select touch(), nextval('tickets')`;
    }
    if (run === 4) {
      // Dead tuples past autovacuum's trigger (autovacuum is off for the table): health check and crossing.
      await target`insert into churn select g, 'x' from generate_series(1, 30000) g`;
      await target`delete from churn where id <= 25000`;
    }
    if (run === 7) {
      await target`drop table quiet`;
    }
    await target`select pg_stat_force_next_flush()`;
    await collectRun(run);
  }
}, 120_000);

afterAll(async () => {
  await target?.end();
  const admin = postgres(MACHINE_POSTGRES_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
  await admin.end();
  await before?.close();
  await after?.close();
});

/** The same request's answer from both apps: status and body. */
async function both(path: string): Promise<void> {
  const answer = async (t: TestApp, bearer: string) => {
    const res = await requestJson(t.app, path, { token: bearer });
    return { status: res.status, body: await res.json() };
  };
  const expected = await answer(before, token.before);
  expect(expected.status, path).toBe(200);
  expect(await answer(after, token.after), path).toEqual(expected);
}

async function rowsOf(sql: Sql, query: string): Promise<unknown[]> {
  return sql.unsafe(query) as Promise<unknown[]>;
}

async function sameRows(query: string): Promise<void> {
  expect(await rowsOf(after.datastore.sql, query), query).toEqual(await rowsOf(before.datastore.sql, query));
}

const PROBES = [
  "pg_stat_all_tables",
  "pg_stat_all_indexes",
  "pg_statio_all_sequences",
  "pg_stat_user_functions",
  "pg_stat_statements",
];

describe("readers of changed-rows probes answer as before", () => {
  it("stores far fewer rows", async () => {
    for (const probe of ["pg_stat_all_tables", "pg_stat_all_indexes", "pg_stat_statements"]) {
      const [full] = await rowsOf(before.datastore.sql, `select count(*)::int as n from metrics.${probe}`);
      const [changed] = await rowsOf(
        after.datastore.sql,
        `select count(*)::int as n from metrics.${probe}_rows`,
      );
      const [read] = await rowsOf(after.datastore.sql, `select count(*)::int as n from metrics.${probe}`);
      expect(read, probe).toEqual(full);
      // A third of the statements change at every run; of the tables and indexes, a few.
      const share = probe === "pg_stat_statements" ? 2 : 3;
      expect((changed as { n: number }).n, probe).toBeLessThan((full as { n: number }).n / share);
    }
  });

  // `last` over the rows of many objects collected at one time (a run's tables, say) takes any of
  // them: which one depends on the order rows are read in, before as after. It is compared where
  // one object is asked for (a table filter), and left out of the rollups' comparison.
  it("metrics: query, latest, summaries, top queries, server info, MCP", async () => {
    const c = `connection_id=${connectionId}`;
    for (const probe of PROBES) {
      for (const aggregation of ["avg", "max", "min", "sum"]) {
        await both(
          `/api/v1/metrics/query?${c}&probe_name=${probe}&time_range=6h&buckets=12&aggregation=${aggregation}`,
        );
      }
      await both(
        `/api/v1/metrics/query?${c}&probe_name=${probe}&time_range=1h&database_name=${databaseName}`,
      );
      await both(`/api/v1/metrics/latest?${c}&probe_name=${probe}`);
      await both(`/api/v1/metrics/latest?${c}&probe_name=${probe}&exclude_schemas=none&limit=1000`);
    }
    for (const aggregation of ["avg", "last"]) {
      await both(
        `/api/v1/metrics/query?${c}&probe_name=pg_stat_all_tables&time_range=6h&schema_name=public&table_name=orders&aggregation=${aggregation}`,
      );
    }
    await both(`/api/v1/metrics/database-summaries?${c}`);
    await both(`/api/v1/metrics/performance-summary?${c}`);
    await both(`/api/v1/metrics/top-queries?${c}`);
    await both(`/api/v1/metrics/top-queries?${c}&order_by=calls`);
    await both(`/api/v1/server-info/${connectionId}`);
    for (const probe of PROBES) {
      const args = { connection_id: connectionId, probe_name: probe, time_range: "6h" };
      const expected = await callBridgeTool(before, token.before, "query_metrics", args);
      expect(expected.isError, probe).toBeFalsy();
      expect(await callBridgeTool(after, token.after, "query_metrics", args), probe).toEqual(expected);
    }
    const sql = {
      query: `select collected_at, schemaname, relname, n_live_tup, n_dead_tup, seq_scan from metrics.pg_stat_all_tables
        where schemaname = 'public' order by 1, 2, 3`,
      limit: 1000,
    };
    const datastoreAnswer = await callBridgeTool(before, token.before, "query_datastore", sql);
    expect(datastoreAnswer.isError).toBeFalsy();
    expect(datastoreAnswer.content[0]?.text).toContain("\tchurn\t");
    expect(await callBridgeTool(after, token.after, "query_datastore", sql)).toEqual(datastoreAnswer);
  });

  it("health checks", async () => {
    const results = await evaluateHealthChecks(before.datastore.sql, [connectionId], NOW);
    expect(results.some((result) => result.check === "dead_tuples" && result.findings.length > 0)).toBe(true);
    expect(await evaluateHealthChecks(after.datastore.sql, [connectionId], NOW)).toEqual(results);
  });

  it("the alerter: conditions, alerts, autovacuum crossings, baselines", async () => {
    const pass = (t: TestApp) =>
      withAlerter(
        t,
        async (alerter) => {
          await alerter.evaluate();
          await alerter.calculateBaselines({ full: true });
        },
        { clock },
      );
    await pass(before);
    await pass(after);
    await sameRows(
      `select rule_id, connection_id, database_name, object_name, status, severity, metric_value::text
       from alerts order by 1, 2, 3, 4`,
    );
    await sameRows(`select * from alert_conditions order by 1, 2, 3, 4`);
    await sameRows(
      `select connection_id, database_name, schema_name, relation_name, crossed_at
       from autovacuum_crossings order by 1, 2, 3, 4`,
    );
    await sameRows(`select * from metric_baseline_hours order by 1, 2, 3, 4, 5`);
    await sameRows(`select * from metric_baselines order by 1, 2, 3, 4, 5`);
    const [found] = await rowsOf(
      before.datastore.sql,
      `select (select count(*) from autovacuum_crossings)::int as crossings,
         (select count(*) from alert_conditions)::int as conditions,
         (select count(*) from metric_baseline_hours)::int as baseline_hours`,
    );
    // Each comparison above compared something.
    expect(found).toEqual({
      crossings: expect.any(Number),
      conditions: expect.any(Number),
      baseline_hours: expect.any(Number),
    });
    for (const count of Object.values(found as Record<string, number>)) {
      expect(count).toBeGreaterThan(0);
    }
  });

  it("rollups", async () => {
    const roll = async (t: TestApp, probes: readonly ProbeSpec[]) => {
      const partitions = new PartitionManager(t.datastore.sql, rollupTables);
      for (let pass = 0; pass < 9; pass += 1) {
        await rollUpMetrics(t.datastore.sql, probes, NOW, (table, at) => partitions.ensureFor(table, at));
      }
    };
    await roll(before, fullProbes);
    await roll(after, probeRegistry);
    const rolled = `select connection_id, database_name, collected_at, probe, metric, sample_count, sum, min, max,
        last_at
      from metrics.metric_rollups_1h where probe = any('{${PROBES.join(",")}}')
      order by connection_id, database_name, collected_at, probe, metric`;
    await sameRows(rolled);
    expect((await rowsOf(before.datastore.sql, rolled)).length).toBeGreaterThan(0);
    for (const probe of PROBES) {
      await both(
        `/api/v1/metrics/query?connection_id=${connectionId}&probe_name=${probe}&time_range=7d&buckets=7`,
      );
    }
  });
});
