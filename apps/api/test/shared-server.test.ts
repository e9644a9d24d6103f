import { currentValues, type MetricValue, metricDefinitions, wholeServerOnly } from "@dbmon/alerter";
import { storeProbeRun, storeServerWideRun } from "@dbmon/collector";
import {
  getConnectionHealth,
  getDatabaseSummaries,
  getLatestSnapshot,
  getMetricBaselines,
  getPerformanceSummary,
  getServerInfo,
  getTopQueries,
  listTimelineEvents,
  queryMetrics,
} from "@dbmon/contract";
import { collectsDatabase, readServerDirectory, serverAddress } from "@dbmon/datastore";
import { evaluateHealthChecks, findProbeSpec, type ProbeSpec, recordHealthChecks } from "@dbmon/monitoring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readServerFacts } from "../src/clusters/status.js";
import { prepareMetrics } from "./monitoring-support.js";
import { buildTestApp, createUser, type TestApp, type TestUser, typedClient } from "./support.js";

// The same collections stored for a server with one connection and for a server with three (two
// registered for the same database, one for another), through the collector's storage: every read
// endpoint answers for each of the three what it answers for the one (issue 28: server-wide probes
// stored once per server, and a database read from whichever connection collects it).

const NOW = new Date("2026-11-20T12:00:00.000Z");
const MINUTE = 60_000;
const RUNS = [15, 10, 5].map((minutesAgo) => new Date(NOW.getTime() - minutesAgo * MINUTE));
const DATABASES = ["app", "other", "postgres"];

type Row = Record<string, unknown>;

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function spec(name: string): ProbeSpec {
  const probe = findProbeSpec(name);
  if (!probe) {
    throw new Error(`no probe ${name}`);
  }
  return probe;
}

/** What run `k` collects of each probe: the same for both servers. */
function collected(k: number): Record<string, Row[]> {
  const at = (RUNS[k] as Date).getTime();
  return {
    pg_stat_activity: DATABASES.flatMap((datname, index) => [
      {
        datname,
        pid: 100 + index,
        usename: "app",
        state: "active",
        backend_type: "client backend",
        query: `select ${index}`,
        xact_start: new Date(at - (index + 1) * MINUTE),
        query_start: new Date(at - (index + 1) * 30_000),
        state_change: new Date(at - 10_000),
      },
    ]),
    pg_database: [...DATABASES, "template1"].map((datname, index) => ({
      datname,
      encoding: "UTF8",
      datistemplate: datname === "template1",
      datallowconn: true,
      datconnlimit: -1,
      age_datfrozenxid: 1_000 * (index + 1) + k,
      age_datminmxid: 10 + k,
      database_size_bytes: 8_000_000 * (index + 1) + k * 1_000,
    })),
    pg_server_info: [
      {
        server_version: "17.2",
        server_version_num: 170002,
        system_identifier: "7300000000000000001",
        cluster_name: "main",
        data_directory: "/var/lib/postgresql/data",
        max_connections: 100,
        max_wal_senders: 10,
        max_replication_slots: 10,
      },
    ],
    pg_sys_os_info: [{ name: "Linux", version: "6.1", host_name: "db1", architecture: "x86_64" }],
    pg_sys_cpu_info: [
      { model_name: "Xeon", logical_processor: 4, no_of_cores: 2, clock_speed_hz: 3_000_000_000 },
    ],
    pg_stat_checkpointer: [{ num_timed: 10 + k, num_requested: k, write_time: 100 * k, sync_time: 10 * k }],
    pg_hba_file_rules: [
      { rule_number: 1, type: "local", database: ["all"], user_name: ["all"], auth_method: "trust" },
      ...(k === 2
        ? [
            {
              rule_number: 2,
              type: "host",
              database: ["app"],
              user_name: ["app"],
              auth_method: "scram-sha-256",
            },
          ]
        : []),
    ],
    pg_settings: [
      { name: "max_connections", setting: "100", unit: null, category: "Connections" },
      { name: "shared_buffers", setting: k === 2 ? "32768" : "16384", unit: "8kB", category: "Memory" },
    ],
    pg_extension: DATABASES.flatMap((database_name) => [
      { database_name, extname: "plpgsql", extversion: "1.0", schema_name: "pg_catalog" },
      ...(database_name === "other"
        ? [{ database_name, extname: "hstore", extversion: "1.8", schema_name: "public" }]
        : []),
      ...(database_name === "other" && k === 2
        ? [{ database_name, extname: "citext", extversion: "1.6", schema_name: "public" }]
        : []),
      ...(database_name === "app"
        ? [{ database_name, extname: "pg_stat_statements", extversion: "1.11", schema_name: "public" }]
        : []),
    ]),
    pg_stat_database: DATABASES.map((database_name, index) => ({
      database_name,
      datname: database_name,
      numbackends: index + 1,
      xact_commit: 1_000 * (index + 1) + 300 * k * (index + 1),
      xact_rollback: 10 * k,
      blks_read: 100 + 10 * k,
      blks_hit: 900 + 100 * k * (index + 1),
      deadlocks: k,
      temp_files: index * k,
    })),
    pg_stat_statements: ["app", "other"].flatMap((database_name, index) => [
      {
        database_name,
        queryid: String(10 + index),
        query: `select * from t${index}`,
        calls: 10 * (k + 1) * (index + 1),
        total_exec_time: 50 * (k + 1) + index,
        mean_exec_time: 5,
        rows: 10 * (k + 1),
        shared_blks_hit: 10,
        shared_blks_read: 1,
      },
    ]),
  };
}

interface Connection {
  id: number;
  database_name: string;
  host: string;
  hostaddr: string | null;
  port: number;
}

/** Stores run `k` for the connections of one server as the collector does. */
async function storeRun(t: TestApp, members: Connection[], k: number): Promise<void> {
  const { sql } = t.datastore;
  const directory = await readServerDirectory(sql);
  const at = RUNS[k] as Date;
  for (const [name, rows] of Object.entries(collected(k))) {
    const probe = spec(name);
    if (probe.scope === "database") {
      for (const member of members) {
        const entry = directory.get(serverAddress(member));
        const own = rows.filter((row) => collectsDatabase(entry, member, String(row.database_name)));
        await storeProbeRun(sql, quiet, probe, member.id, at, own);
      }
    } else if (name === "pg_settings") {
      for (const member of members) {
        await storeProbeRun(sql, quiet, probe, member.id, at, rows);
      }
    } else {
      const stored = await storeServerWideRun(
        sql,
        quiet,
        probe,
        members.map((member) => member.id),
        at,
        rows,
      );
      expect(stored.storedUnder).toBe(members[0]?.id);
    }
  }
}

describe("a server with several connections", () => {
  let t: TestApp;
  let root: TestUser;
  let alone: Connection;
  let shared: Connection[];

  async function connect(name: string, host: string, database: string): Promise<Connection> {
    const [row] = await t.datastore.sql<Connection[]>`
      insert into connections (name, host, port, database_name, username, owner_username, is_monitored)
      values (${name}, ${host}, 5432, ${database}, 'postgres', 'root', true)
      returning id, database_name, host, hostaddr, port`;
    return row as Connection;
  }

  beforeAll(async () => {
    t = await buildTestApp({ clock: { now: () => NOW } });
    root = await createUser(t, "root", { superuser: true });
    await prepareMetrics(t, NOW);
    alone = await connect("alone", "alone.test", "app");
    shared = [
      await connect("shared-app", "shared.test", "app"),
      await connect("shared-app-again", "shared.test", "app"),
      await connect("shared-other", "shared.test", "other"),
    ];
    for (const k of RUNS.keys()) {
      await storeRun(t, [alone], k);
      await storeRun(t, shared, k);
    }
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  const api = () => typedClient(t, root.token);

  /**
   * An answer with the connection's own identity taken out, numbers to 12 significant digits (the
   * rows of several connections are summed in another order).
   */
  function anonymous(value: unknown, id: number): unknown {
    return JSON.parse(
      JSON.stringify(value, (key, field) =>
        ["connection_id", "connectionId", "connection_name", "connectionName", "server_name"].includes(key)
          ? undefined
          : typeof field === "number"
            ? Number(field.toPrecision(12))
            : key === "id" && typeof field === "string"
              ? field.replace(`-${id}-`, "-")
              : key === "name" && typeof field === "string"
                ? field.replace(` (conn ${id})`, "")
                : field,
      ),
    );
  }

  async function everyAnswer(id: number): Promise<Record<string, unknown>> {
    const client = api();
    const answers: Record<string, unknown> = {
      serverInfo: await client.call(getServerInfo, { params: { connection_id: id } }),
      performance: await client.call(getPerformanceSummary, {
        query: { connection_ids: `${id}`, time_range: "1h" },
      }),
      databases: await client.call(getDatabaseSummaries, { query: { connection_id: id, time_range: "1h" } }),
      topQueries: await client.call(getTopQueries, { query: { connection_id: id } }),
      timeline: await client.call(listTimelineEvents, {
        query: {
          connection_id: id,
          start_time: new Date(NOW.getTime() - 3600_000).toISOString(),
          end_time: NOW.toISOString(),
        },
      }),
      facts: (await readServerFacts(t.datastore.sql)).get(id),
    };
    for (const probe of ["pg_database", "pg_stat_checkpointer", "pg_stat_database", "pg_stat_activity"]) {
      answers[`series ${probe}`] = await client.call(queryMetrics, {
        query: { connection_id: id, probe_name: probe, time_range: "1h", buckets: 12, aggregation: "AVG" },
      });
      answers[`baselines ${probe}`] = await client.call(getMetricBaselines, {
        query: { connection_id: id, probe_name: probe },
      });
    }
    for (const probe of ["pg_stat_activity", "pg_stat_database", "pg_extension", "pg_database"]) {
      answers[`latest ${probe}`] = await client.call(getLatestSnapshot, {
        query: { connection_id: id, probe_name: probe },
      });
    }
    return anonymous(answers, id) as Record<string, unknown>;
  }

  it("answers every read endpoint for each connection as a connection collecting alone", async () => {
    const expected = await everyAnswer(alone.id);
    // The data is there to compare: a server's databases, extensions of every database, events.
    expect(expected.serverInfo).toMatchObject({
      databases: [{ name: "app" }, { name: "other" }, { name: "postgres" }],
      extensions: expect.arrayContaining([expect.objectContaining({ name: "citext", database: "other" })]),
    });
    expect((expected.timeline as { events: unknown[] }).events.length).toBeGreaterThanOrEqual(3);
    expect((expected.topQueries as unknown[]).length).toBe(2);
    for (const connection of shared) {
      expect(await everyAnswer(connection.id)).toEqual(expected);
    }
  });

  it("gives the alerter each server-wide value for every connection and each database's once", async () => {
    for (const [name, definition] of Object.entries(metricDefinitions)) {
      if (definition.latest || !definition.tables.every((table) => findProbeSpec(table))) {
        continue;
      }
      const values = await currentValues(t.datastore.sql, definition, NOW);
      const of = (ids: number[]) =>
        values
          .filter((value) => ids.includes(value.connection_id))
          .map(({ connection_id: _, ...value }: MetricValue) => value)
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      const expected = of([alone.id]);
      const server = expected.filter((value) => value.database_name === null);
      for (const connection of shared) {
        expect(
          of([connection.id]).filter((value) => value.database_name === null),
          name,
        ).toEqual(server);
      }
      // A database's values belong to the connection collecting it: once over the server.
      const perDatabase = expected.filter((value) => value.database_name !== null);
      expect(
        of(shared.map((connection) => connection.id)).filter(
          (value, index, all) =>
            value.database_name !== null &&
            // The database registered twice is collected by both of its connections.
            (value.database_name !== "app" ||
              all.findIndex((other) => JSON.stringify(other) === JSON.stringify(value)) === index),
        ),
        name,
      ).toEqual(perDatabase);
    }
  });

  it("reads a whole-server-only metric's rows once per server, as the connection they are stored under", async () => {
    const sorted = (values: MetricValue[]) =>
      [...values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    // The connections each server's rows are stored under: the lowest id of each server.
    const storedUnder = [alone.id, Math.min(...shared.map((connection) => connection.id))];
    // A minute after the last run: within the 5-minute freshness of the activity metrics.
    const justAfterRuns = new Date((RUNS.at(-1) as Date).getTime() + MINUTE);
    let wholeServer = 0;
    for (const [name, definition] of Object.entries(metricDefinitions)) {
      if (definition.latest || !definition.tables.every((table) => findProbeSpec(table))) {
        continue;
      }
      const every = await currentValues(t.datastore.sql, definition, justAfterRuns);
      const once = await currentValues(t.datastore.sql, definition, justAfterRuns, {
        oneReaderPerServer: true,
      });
      if (!wholeServerOnly(definition)) {
        expect(sorted(once), name).toEqual(sorted(every));
        continue;
      }
      // Whole-server only: no value names a database, and each server's is its storing connection's.
      expect(
        every.filter((value) => value.database_name !== null),
        name,
      ).toEqual([]);
      expect(sorted(once), name).toEqual(
        sorted(every.filter((value) => storedUnder.includes(value.connection_id))),
      );
      wholeServer += once.length > 0 ? 1 : 0;
    }
    expect(wholeServer).toBeGreaterThan(3);
  });

  it("answers each connection's health checks as the connection collecting alone, evaluating the server once", async () => {
    const ids = [alone.id, ...shared.map((connection) => connection.id)];
    const results = await evaluateHealthChecks(t.datastore.sql, ids, NOW);
    const of = (id: number) =>
      results.filter((result) => result.connectionId === id).map(({ connectionId: _, ...result }) => result);
    const expected = of(alone.id);
    expect(expected.filter((result) => result.status !== "unknown").length).toBeGreaterThan(0);
    for (const connection of shared) {
      expect(of(connection.id), connection.database_name).toEqual(expected);
      // Evaluated alone, as itself or as the connection it reads as: the same.
      expect(
        (await evaluateHealthChecks(t.datastore.sql, [connection.id], NOW)).map(
          ({ connectionId: _, ...result }) => result,
        ),
      ).toEqual(expected);
    }
  });

  it("stores each run of a server-wide probe once for the server, not once per connection", async () => {
    const counts = await t.datastore.sql<{ connection_id: number; runs: number; rows: number }[]>`
      select connection_id, count(distinct collected_at)::int as runs, count(*)::int as rows
      from metrics.pg_database group by connection_id order by connection_id`;
    expect(counts).toEqual([
      { connection_id: alone.id, runs: 3, rows: 12 },
      { connection_id: shared[0]?.id, runs: 3, rows: 12 },
    ]);
    const activity = await t.datastore.sql<{ connection_id: number }[]>`
      select distinct connection_id from metrics.pg_stat_activity order by 1`;
    expect(activity.map((row) => row.connection_id)).toEqual([alone.id, shared[0]?.id]);
  });
  it("rewrites no stored result a pass found again (a server's findings are every connection's), but says when it ran", async () => {
    const { sql } = t.datastore;
    // Twenty tables of the shared server with dead tuples and long names (not compressible): findings of some kilobytes,
    // stored out of line (TOAST), for each of its connections.
    const at = new Date(NOW.getTime() - 60_000).toISOString();
    await sql`
      insert into metrics.pg_stat_all_tables (connection_id, database_name, collected_at, schemaname, relname,
        n_live_tup, n_dead_tup)
      select ${shared[0]?.id as number}, 'app', ${at}, 'public', 't_' || md5(i::text) || md5((i + 100)::text) || md5((i + 200)::text),
        100000, 90000 + i
      from generate_series(1, 20) i`;
    const toastBytes = async () => {
      const [row] = await sql<{ bytes: number }[]>`
        select pg_relation_size(reltoastrelid)::float8 as bytes from pg_class where relname = 'health_check_status'`;
      return row?.bytes ?? 0;
    };
    await recordHealthChecks(sql, NOW);
    const [stored] = await sql<{ kind: string; findings: number }[]>`
      select jsonb_typeof(findings) as kind, jsonb_array_length(findings) as findings from health_check_status
      where connection_id = ${shared[2]?.id as number} and check_name = 'dead_tuples'`;
    // An array of objects (it was once stored as a jsonb string holding the array's text).
    expect(stored).toEqual({ kind: "array", findings: 20 });
    const first = await toastBytes();
    expect(first).toBeGreaterThan(0);
    const versions = () =>
      sql<{ id: string }[]>`select ctid::text || xmin::text as id from health_check_status order by 1`.then(
        (rows) => rows.map((row) => row.id),
      );
    const written = await versions();
    expect(written.length).toBeGreaterThan(0);
    await recordHealthChecks(sql, new Date(NOW.getTime() + 1000));
    const last = new Date(NOW.getTime() + 2000);
    await recordHealthChecks(sql, last);
    expect(await toastBytes()).toBe(first);
    // No row version of a result written again: only each connection's evaluation time moved.
    expect(await versions()).toEqual(written);
    const evaluations = await sql<
      { at: Date }[]
    >`select distinct evaluated_at as at from health_check_evaluations`;
    expect(evaluations.map((row) => new Date(row.at).toISOString())).toEqual([last.toISOString()]);
    const health = await api().call(getConnectionHealth, { params: { id: shared[2]?.id as number } });
    expect(health.evaluated_at).toBe(last.toISOString());
    expect(new Set(health.checks.map((check) => check.evaluated_at))).toEqual(new Set([last.toISOString()]));
  });
});
