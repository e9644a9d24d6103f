import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmbeddedServer, silentLogger, startEmbeddedServer } from "@dbmon/datastore";
import { databaseUrl, machinePostgresAvailable } from "@dbmon/datastore/testing";
import { SYSTEM_SCHEMAS } from "@dbmon/monitoring";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findProbe, probeRegistry } from "../src/index.js";
import type { ColumnType, ProbeContext, ProbeDefinition, ProbeRow } from "../src/probes/types.js";
import { queryForVersion } from "../src/probes/types.js";
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

// Monitors the machine's PostgreSQL 15 (CI has it); a machine with only Node.js skips this file.
const machinePostgres = await machinePostgresAvailable();

/** Runs a probe once on a database the way the collector does (without the scheduler). */
async function runProbe(
  sql: postgres.Sql,
  probe: ProbeDefinition,
  isLocalHost: boolean,
  includeSystemCatalogs = true,
): Promise<ProbeRow[] | null> {
  const [version] = await sql<{ v: number }[]>`select current_setting('server_version_num')::int as v`;
  const context: ProbeContext = {
    query: (text) => sql.unsafe(`/* dbmon collector: ${probe.name} */ ${text}`) as Promise<ProbeRow[]>,
    serverVersionNum: version?.v ?? 0,
    systemStatsSchema: null,
    isLocalHost,
    includeSystemCatalogs,
    absent: () => {},
  };
  if (probe.collect) {
    return probe.collect(context);
  }
  const text = queryForVersion(probe.queries ?? [], context.serverVersionNum);
  return text === undefined ? null : context.query(text);
}

/** PostgreSQL type names of information_schema for the column types probes declare. */
const INFORMATION_SCHEMA_TYPES: Record<ColumnType, string> = {
  text: "text",
  integer: "integer",
  bigint: "bigint",
  numeric: "numeric",
  "double precision": "double precision",
  boolean: "boolean",
  timestamptz: "timestamp with time zone",
  "text[]": "ARRAY",
  jsonb: "jsonb",
  interval: "interval",
  inet: "inet",
};

/** Probes that produce rows on any server of the test setup (others need replication, spock...). */
const ALWAYS_ROWS = [
  "pg_stat_activity",
  "pg_stat_connection_security",
  "pg_stat_checkpointer",
  "pg_stat_wal",
  "pg_settings",
  "pg_hba_file_rules",
  "pg_server_info",
  "pg_node_role",
  "pg_connectivity",
  "pg_database",
  "pg_stat_database",
  "pg_stat_database_conflicts",
  "pg_stat_all_tables",
  "pg_stat_all_indexes",
  "pg_statio_all_sequences",
  "pg_stat_user_functions",
  "pg_extension",
  "pg_sys_os_info",
  "pg_sys_cpu_info",
  "pg_sys_cpu_usage_info",
  "pg_sys_memory_info",
  "pg_sys_io_analysis_info",
  "pg_sys_disk_info",
  "pg_sys_load_avg_info",
  "pg_sys_process_info",
  "pg_sys_network_info",
  "pg_sys_cpu_memory_by_process",
];

const SETUP = [
  "create extension if not exists pg_stat_statements",
  "create table orders (id bigserial primary key, total numeric)",
  "create index orders_total_idx on orders (total)",
  "insert into orders (total) select g from generate_series(1, 100) g",
  "create function add_one(x int) returns int language plpgsql as $$ begin return x + 1; end $$",
  "set track_functions = 'all'",
  "select add_one(1)",
  "select count(*) from orders where total > 50",
];

function checkCatalogue(server: () => { url: string; version: number }, env: () => TestEnvironment) {
  let monitored: MonitoredDatabase;
  let sql: postgres.Sql;
  let connectionId: number;
  const results = new Map<string, ProbeRow[] | null>();

  beforeAll(async () => {
    monitored = await createMonitoredDatabase(server().url);
    sql = postgres(monitored.url, { max: 1, onnotice: () => {} });
    for (const statement of SETUP) {
      await sql.unsafe(statement);
    }
    await sql.unsafe("select pg_stat_force_next_flush()").catch(() => undefined);
    connectionId = await insertConnection(env(), {
      database_name: monitored.name,
      name: `pg${server().version}`,
    });
    for (const probe of probeRegistry) {
      results.set(probe.name, await runProbe(sql, probe, true));
    }
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await monitored?.drop();
  });

  it("runs every probe of the catalogue, producing rows where the server has something to show", () => {
    for (const probe of probeRegistry) {
      const rows = results.get(probe.name);
      if (ALWAYS_ROWS.includes(probe.name)) {
        expect(rows?.length, probe.name).toBeGreaterThan(0);
      }
      for (const row of rows ?? []) {
        for (const col of probe.columns) {
          expect(Object.hasOwn(row, col.name), `${probe.name}.${col.name}`).toBe(true);
        }
      }
    }
    const tables = results.get("pg_stat_all_tables") ?? [];
    expect(tables.find((row) => row.relname === "orders")).toMatchObject({
      schemaname: "public",
      n_live_tup: "100",
    });
    const indexes = results.get("pg_stat_all_indexes") ?? [];
    expect(indexes.some((row) => row.indexrelname === "orders_total_idx")).toBe(true);
    expect((results.get("pg_stat_user_functions") ?? []).some((row) => row.funcname === "add_one")).toBe(
      true,
    );
    expect(results.get("pg_node_role")?.[0]).toMatchObject({
      is_in_recovery: false,
      primary_role: "standalone",
    });
    expect((results.get("pg_stat_io") ?? []).some((row) => row.backend_type === "slru")).toBe(true);
    if (server().version >= 16) {
      expect((results.get("pg_stat_io") ?? []).some((row) => row.backend_type === "client backend")).toBe(
        true,
      );
    }
    if (server().version >= 15) {
      expect(results.get("pg_stat_recovery_prefetch")?.length).toBe(1);
    }
  });

  it("leaves out the system catalogs' tables and indexes when the probe configuration says so", async () => {
    const system = (rows: ProbeRow[] | null | undefined) =>
      (rows ?? []).filter((row) => SYSTEM_SCHEMAS.includes(String(row.schemaname))).length;
    for (const name of ["pg_stat_all_tables", "pg_stat_all_indexes"]) {
      const probe = findProbe(name) as ProbeDefinition;
      expect(probe.systemCatalogsOptional, name).toBe(true);
      expect(system(results.get(name)), name).toBeGreaterThan(10);
      const without = await runProbe(sql, probe, true, false);
      expect(system(without), name).toBe(0);
      expect(
        without?.some((row) => row.relname === "orders"),
        name,
      ).toBe(true);
    }
  });

  it("collects pg_stat_statements of this database only, when the extension is loaded", async () => {
    const [loaded] = await sql<{ on: boolean }[]>`
      select 'pg_stat_statements' = any(string_to_array(current_setting('shared_preload_libraries'), ',')) as on`;
    const rows = results.get("pg_stat_statements");
    if (!loaded?.on) {
      expect(rows).toBeNull();
      return;
    }
    expect(rows?.length).toBeGreaterThan(0);
    const [db] = await sql<
      { oid: string }[]
    >`select oid::text from pg_database where datname = current_database()`;
    expect(new Set(rows?.map((row) => row.dbid))).toEqual(new Set([db?.oid]));
    expect(rows?.some((row) => String(row.query).includes("orders"))).toBe(true);
  });

  it("stores every probe's rows in tables of the declared column types", async () => {
    const { sql: store } = env().datastore;
    await ensureMetricsTables(store, probeRegistry);
    const partitions = new PartitionManager(store, probeRegistry);
    const at = new Date();
    await partitions.ensureAround(at);
    for (const probe of probeRegistry) {
      const rows = (results.get(probe.name) ?? []).map((row) =>
        probe.scope === "database" ? { ...row, database_name: monitored.name } : row,
      );
      const outcome = await storeProbeRun(store, quietLogger, probe, connectionId, at, rows);
      expect(outcome.failed, probe.name).toBe(0);
      expect(outcome.stored, probe.name).toBe(rows.length);
    }
    const declared = await store<{ table_name: string; column_name: string; data_type: string }[]>`
      select table_name::text, column_name::text, data_type::text from information_schema.columns
      where table_schema = 'metrics' and table_name = any(${probeRegistry.map((probe) => probe.name)})`;
    for (const probe of probeRegistry) {
      for (const col of probe.columns) {
        const found = declared.find((row) => row.table_name === probe.name && row.column_name === col.name);
        expect(found?.data_type, `${probe.name}.${col.name}`).toBe(INFORMATION_SCHEMA_TYPES[col.type]);
      }
    }
    const [activity] = await store<{ n: number }[]>`
      select count(*)::int as n from metrics.pg_stat_activity where connection_id = ${connectionId}`;
    expect(activity?.n).toBeGreaterThan(0);
  });
}

let env: TestEnvironment;
beforeAll(async () => {
  env = await openTestEnvironment();
});
afterAll(async () => {
  await env?.close();
});

describe.skipIf(!machinePostgres)("the probe catalogue on PostgreSQL 15", () => {
  checkCatalogue(
    () => ({ url: MONITORED_SERVER_URL, version: 15 }),
    () => env,
  );
});

describe("the probe catalogue on the embedded PostgreSQL 18", () => {
  let server: EmbeddedServer;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "dbmon-catalogue-18-"));
    server = await startEmbeddedServer({ dataDir, port: 0, logger: silentLogger });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  checkCatalogue(
    () => ({ url: databaseUrl(server.url, "postgres"), version: 18 }),
    () => env,
  );
});
