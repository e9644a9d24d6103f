// Storage of one quiet database's per-object statistics (the fleet benchmark's schema, no load):
// BENCH_CHANGED_RUNS (96: eight hours; 288 is a day) 5-minute runs of the five changed-rows probes, stored in full as
// before (plain tables named `<probe>_before`) and as changed rows, in rows and bytes (tables and
// indexes). The monitored database lives on the bench datastore's server (embedded PostgreSQL 18,
// with pg_stat_statements loaded, unless DBMON_DATABASE_URL says otherwise).

import {
  ChangedRowsMemory,
  ensureMetricsTables,
  PartitionManager,
  type ProbeDefinition,
  type ProbeRow,
  probeRegistry,
  storeProbeRun,
} from "../packages/collector/src/index.js";
import { changedRowsTables, openDatastore, type Sql } from "../packages/datastore/src/index.js";
import { execStatements } from "../packages/datastore/src/testing/statements.js";
import { databaseUrl } from "../packages/datastore/src/testing/urls.js";
import { startApiOnly } from "./datastore.js";
import { FLEET_DATABASE_SCHEMA } from "./fleet-databases.js";

const RUNS = Number(process.env.BENCH_CHANGED_RUNS ?? 96);
const MINUTE = 60_000;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const changed = probeRegistry.filter((probe) => probe.changedRows);
/** The same probes stored as before changed rows: every row of every run, in plain tables. */
const full: ProbeDefinition[] = changed.map(({ changedRows: _, ...probe }) => ({
  ...probe,
  name: `${probe.name}_before`,
}));

/** Bytes of a partitioned table's partitions, with their indexes and TOAST. */
async function bytesOf(sql: Sql, table: string): Promise<number> {
  const [row] = await sql<{ bytes: number }[]>`
    select coalesce(sum(pg_total_relation_size(relid)), 0)::float8 as bytes
    from pg_partition_tree(${`metrics."${table}"`}::regclass) where isleaf`;
  return row?.bytes ?? 0;
}

async function countOf(sql: Sql, table: string): Promise<number> {
  const [row] = await sql.unsafe<{ n: number }[]>(`select count(*)::int as n from metrics."${table}"`);
  return row?.n ?? 0;
}

interface Size {
  rows: number;
  bytes: number;
}

async function sizes(sql: Sql): Promise<Map<string, { before: Size; after: Size }>> {
  const result = new Map<string, { before: Size; after: Size }>();
  for (const probe of changed) {
    const { rows, runs } = changedRowsTables(probe.name);
    result.set(probe.name, {
      before: {
        rows: await countOf(sql, `${probe.name}_before`),
        bytes: await bytesOf(sql, `${probe.name}_before`),
      },
      after: {
        rows: (await countOf(sql, rows)) + (await countOf(sql, runs)),
        bytes: (await bytesOf(sql, rows)) + (await bytesOf(sql, runs)),
      },
    });
  }
  return result;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

export async function run(): Promise<void> {
  const api = await startApiOnly();
  const { sql } = api.datastore;
  const name = `bench_quiet_${Date.now().toString(36)}`;
  const [server] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
  try {
    await sql.unsafe(`create database "${name}"`);
    const monitoredUrl = databaseUrl(api.datastore.url, name);
    await execStatements(monitoredUrl, ...FLEET_DATABASE_SCHEMA);
    const [connection] = await sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username, is_monitored)
      values ('quiet', '127.0.0.1', 5432, ${name}, 'postgres', 'admin', false) returning id`;
    const connectionId = connection?.id ?? 0;
    await ensureMetricsTables(sql, [...full, ...changed]);
    const partitions = new PartitionManager(sql, [...full, ...changed]);
    // A day from Tuesday 00:00 UTC of this week: no week boundary within it.
    const monday = new Date();
    monday.setUTCHours(0, 0, 0, 0);
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
    const start = monday.getTime() + 24 * 60 * MINUTE;
    const memory = new ChangedRowsMemory();
    const monitored = await openDatastore({
      databaseUrl: monitoredUrl,
      dataDir: "",
      migrate: false,
      maxConnections: 1,
    });
    const target = monitored.sql;
    const [version] = await target<{ v: number }[]>`select current_setting('server_version_num')::int as v`;
    const context = {
      query: (text: string) => target.unsafe(text) as Promise<ProbeRow[]>,
      serverVersionNum: version?.v ?? 0,
      systemStatsSchema: null,
      isLocalHost: true,
      includeSystemCatalogs: true,
      absent: () => {},
    };
    let afterFirst = new Map<string, { before: Size; after: Size }>();
    for (let run = 0; run < RUNS; run += 1) {
      const at = new Date(start + run * 5 * MINUTE);
      for (const [index, probe] of changed.entries()) {
        const rows = ((await probe.collect?.(context)) ?? []).map((row) => ({ ...row, database_name: name }));
        const plain = full[index] as ProbeDefinition;
        await partitions.ensureFor(plain, at);
        await partitions.ensureFor(probe, at);
        await storeProbeRun(sql, silent, plain, connectionId, at, rows);
        await storeProbeRun(sql, silent, probe, connectionId, at, rows, undefined, memory);
      }
      if (run === 0) {
        afterFirst = await sizes(sql);
      }
    }
    await monitored.close();
    await sql`vacuum analyze`;
    const total = await sizes(sql);
    const scale = 288 / RUNS;
    console.log(
      `\n## changed rows: one quiet database, ${RUNS} runs at 5 minutes (PostgreSQL ${server?.version})`,
    );
    console.log(
      "| probe | before: rows / MB per day | after: rows / MB per day | after, without the day's keyframe |",
    );
    console.log("| --- | --- | --- | --- |");
    let before = 0;
    let after = 0;
    let steady = 0;
    for (const [probe, size] of total) {
      const first = afterFirst.get(probe)?.after ?? { rows: 0, bytes: 0 };
      const steadyBytes = ((size.after.bytes - first.bytes) * 288) / Math.max(RUNS - 1, 1);
      before += size.before.bytes * scale;
      after += size.after.bytes * scale;
      steady += steadyBytes;
      console.log(
        `| ${probe} | ${Math.round(size.before.rows * scale)} / ${mb(size.before.bytes * scale)} | ${Math.round(size.after.rows * scale)} / ${mb(size.after.bytes * scale)} | ${mb(steadyBytes)} |`,
      );
    }
    console.log(
      `changed rows: quiet database, ${mb(before)} MB per day before, ${mb(after)} MB after (${mb(steady)} MB on a day without a keyframe)`,
    );
    // What system catalogs (pg_catalog, information_schema, pg_toast) take of the rows stored after
    // the first run: the probes' own catalog reads change a few of them at every run.
    for (const probe of ["pg_stat_all_tables", "pg_stat_all_indexes"]) {
      const [share] = await sql.unsafe<
        { catalogs: number; all: number; objects: number; catalog_objects: number }[]
      >(
        `select count(*) filter (where schemaname in ('pg_catalog', 'information_schema', 'pg_toast'))::int as catalogs,
           count(*)::int as all,
           count(distinct object_key)::int as objects,
           count(distinct object_key) filter (where schemaname in ('pg_catalog', 'information_schema', 'pg_toast'))::int
             as catalog_objects
         from metrics."${changedRowsTables(probe).rows}" where collected_at > $1`,
        [new Date(start).toISOString()],
      );
      console.log(
        `${probe}: after the first run, ${share?.catalogs} of ${share?.all} stored rows are system catalogs' (${share?.catalog_objects} of ${share?.objects} objects that changed)`,
      );
    }
    // What reading costs: every run of the day, and the newest run, from the full table and the view.
    for (const [label, where] of [
      ["every run", "collected_at >= $2"],
      [
        "the newest run",
        "collected_at = (select max(collected_at) from metrics.pg_stat_all_tables_before where connection_id = $1 and collected_at >= $2)",
      ],
    ] as const) {
      const timings: string[] = [];
      for (const table of ["pg_stat_all_tables_before", "pg_stat_all_tables"]) {
        const query = `select count(*), sum(n_live_tup + seq_scan) from metrics."${table}" where connection_id = $1 and ${where}`;
        const params = [connectionId, new Date(start).toISOString()];
        await sql.unsafe(query, params);
        const began = performance.now();
        for (let i = 0; i < 5; i += 1) {
          await sql.unsafe(query, params);
        }
        timings.push(((performance.now() - began) / 5).toFixed(1));
      }
      console.log(
        `pg_stat_all_tables, reading ${label}: ${timings[0]} ms from the full table, ${timings[1]} ms through the view`,
      );
    }
    await sql.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await api.close();
  }
}
