import type { EmbeddedServer } from "@dbmon/datastore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProbeDefinition, probeRegistry, type RunningCollector, startCollector } from "../src/index.js";
import {
  insertConnection,
  openTestEnvironment,
  type PrivateServer,
  quietLogger,
  startPrivateServer,
  type TestEnvironment,
  waitFor,
} from "./support.js";

// A PostgreSQL 18 server of this file's own: its sessions can be counted and every database of it
// visited as often as the tests like.
const role = "dbmon_grouped";
const rolePassword = "Grouped-Pa55";
let privateServer: PrivateServer;
let server: EmbeddedServer;

/** A database probe storing how many sessions the collector's role has open on the whole server. */
const sessionCount: ProbeDefinition = {
  name: "group_session_count",
  scope: "database",
  intervalSeconds: 0.2,
  retentionDays: 1,
  snapshot: false,
  columns: [{ name: "sessions", type: "integer" }],
  queries: [
    {
      minVersion: 0,
      sql: `select (select count(*)::int from pg_stat_activity where usename = current_user) as sessions
            from pg_sleep(0.02)`,
    },
  ],
};

const registryProbe = (name: string) => {
  const probe = probeRegistry.find((candidate) => candidate.name === name);
  if (!probe) {
    throw new Error(`no probe ${name}`);
  }
  return probe;
};

beforeAll(async () => {
  privateServer = await startPrivateServer("groups", { name: role, password: rolePassword }, [
    "alpha",
    "beta",
    "gamma",
    "delta",
  ]);
  server = privateServer.server;
});

afterAll(async () => {
  await privateServer?.stop();
});

describe("connections to one server", () => {
  let env: TestEnvironment;
  let collector: RunningCollector;
  const ids: Record<string, number> = {};
  const connect = (database: string) =>
    insertConnection(env, {
      name: database,
      port: server.port,
      username: role,
      // Encrypted anew for each connection: the group is found by the password, not its ciphertext.
      password: rolePassword,
      database_name: database,
    });

  beforeAll(async () => {
    env = await openTestEnvironment();
    for (const database of ["alpha", "beta", "gamma"]) {
      ids[database] = await connect(database);
    }
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      probes: [
        registryProbe("pg_connectivity"),
        registryProbe("pg_server_info"),
        registryProbe("pg_node_role"),
        sessionCount,
      ],
      // pg_server_info keeps its hourly interval: a connection joining later must not wait for it.
      intervalOverrides: { pg_connectivity: 0.2 },
      backoffInitialSeconds: 0.5,
      backoffMaxSeconds: 1,
    });
  });

  afterAll(async () => {
    await collector?.stop();
    await env?.close();
  });

  const sql = () => env.datastore.sql;

  async function runTimes(connectionId: number): Promise<string[]> {
    const rows = await sql()<{ at: string }[]>`
      select collected_at::text as at from metrics.pg_connectivity
      where connection_id = ${connectionId} order by collected_at`;
    return rows.map((row) => row.at);
  }

  async function databasesCollected(connectionId: number, since = "-infinity"): Promise<string[]> {
    const rows = await sql()<{ database_name: string }[]>`
      select distinct database_name from metrics.group_session_count
      where connection_id = ${connectionId} and collected_at >= ${since}::timestamptz
      order by database_name`;
    return rows.map((row) => row.database_name);
  }

  it("share the server's sessions and store each run of a server-wide probe once, under the first", async () => {
    const counts = await waitFor(
      "many runs",
      async () => {
        const rows = await sql()<{ sessions: number }[]>`
          select sessions from metrics.group_session_count`;
        return rows.length >= 60 ? rows.map((row) => row.sessions) : undefined;
      },
      30_000,
    );
    // Three connections, each with a database probe every 200 ms and server-wide probes besides:
    // still at most three sessions on the server (maxSessionsPerServer), not three per connection.
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);

    // The server's rows are stored once, under its representative (the lowest id), and each
    // connection reads them through it.
    const times = await sql()<{ connection_id: number; runs: number; distinct_runs: number }[]>`
      select connection_id, count(*)::int as runs, count(distinct collected_at)::int as distinct_runs
      from metrics.pg_connectivity group by connection_id`;
    expect(times).toHaveLength(1);
    expect(times[0]?.connection_id).toBe(ids.alpha);
    expect(times[0]?.runs).toBeGreaterThanOrEqual(5);
    expect(times[0]?.distinct_runs).toBe(times[0]?.runs);
    const representatives = await sql()<{ id: number }[]>`
      select dbmon_server_connection(id) as id from unnest(${[ids.alpha ?? 0, ids.beta ?? 0, ids.gamma ?? 0]}::int[]) as c(id)`;
    expect(representatives.map((row) => row.id)).toEqual([ids.alpha, ids.alpha, ids.alpha]);
    const runs = await sql()<{ connection_id: number }[]>`
      select connection_id from probe_runs where probe_name = 'pg_connectivity'`;
    expect(runs.map((row) => row.connection_id)).toEqual([ids.alpha]);
  });

  it("runs a probe that reads the connected database for each connection, in its own database", async () => {
    const rows = await sql()<{ connection_id: number; n: number }[]>`
      select connection_id, count(*)::int as n from metrics.pg_node_role group by connection_id`;
    expect(rows.map((row) => row.connection_id).sort()).toEqual([ids.alpha, ids.beta, ids.gamma].sort());
    const alpha = await sql()<{ at: string }[]>`
      select collected_at::text as at from metrics.pg_node_role where connection_id = ${ids.alpha ?? 0}`;
    const beta = await sql()<{ at: string }[]>`
      select collected_at::text as at from metrics.pg_node_role where connection_id = ${ids.beta ?? 0}`;
    expect(alpha.map((row) => row.at)).not.toEqual(beta.map((row) => row.at));
  });

  it("collects each registered database under its own connection, the others under the first", async () => {
    expect(await databasesCollected(ids.beta ?? 0)).toEqual(["beta"]);
    expect(await databasesCollected(ids.gamma ?? 0)).toEqual(["gamma"]);
    // alpha has the lowest id: it also collects the databases nobody registered.
    expect(await databasesCollected(ids.alpha ?? 0)).toEqual(["alpha", "delta", "postgres"]);
  });

  it("gives a connection that joins later the server's hourly snapshot at once, and its database", async () => {
    const serverInfoOf = async (connectionId: number) => {
      const [row] = await sql()<{ n: number }[]>`
        select count(*)::int as n from metrics.pg_server_info
        where connection_id = dbmon_server_connection(${connectionId})`;
      return row?.n ?? 0;
    };
    expect(await serverInfoOf(ids.alpha ?? 0)).toBe(1);
    ids.delta = await connect("delta");
    // Read through the server's representative: there before delta's first run.
    expect(await serverInfoOf(ids.delta ?? 0)).toBe(1);
    await waitFor("delta's own database probe", async () =>
      (await databasesCollected(ids.delta ?? 0)).includes("delta") ? true : undefined,
    );
    // Delta being collected, the collector has read that it is registered: from now on alpha's runs
    // leave it to its own connection.
    const handedOver = new Date().toISOString();
    await new Promise((done) => setTimeout(done, 1_500));
    expect(await databasesCollected(ids.alpha ?? 0, handedOver)).toEqual(["alpha", "postgres"]);
    expect(await databasesCollected(ids.delta ?? 0)).toEqual(["delta"]);
  });

  it("leaves the server-wide probes of a server to the group holding its representative", async () => {
    // Other credentials: a group of its own at the same address, whose member is not the lowest id.
    const superuser = new URL(server.url);
    const other = await insertConnection(env, {
      name: "as-superuser",
      port: server.port,
      username: decodeURIComponent(superuser.username),
      password: decodeURIComponent(superuser.password),
      database_name: "beta",
    });
    await waitFor("its own database probe", async () =>
      (await databasesCollected(other)).includes("beta") ? true : undefined,
    );
    const since = new Date().toISOString();
    await new Promise((done) => setTimeout(done, 1_500));
    const stored = await sql()<{ connection_id: number; runs: number }[]>`
      select connection_id, count(*)::int as runs from metrics.pg_connectivity
      where collected_at >= ${since}::timestamptz group by connection_id`;
    expect(stored.map((row) => row.connection_id)).toEqual([ids.alpha]);
    // One run at a time, however many groups: one row per run.
    const [distinct] = await sql()<{ runs: number; rows: number }[]>`
      select count(distinct collected_at)::int as runs, count(*)::int as rows from metrics.pg_connectivity
      where collected_at >= ${since}::timestamptz`;
    expect(distinct?.rows).toBe(distinct?.runs);
    const [reads] = await sql()<{ id: number }[]>`select dbmon_server_connection(${other}) as id`;
    expect(reads?.id).toBe(ids.alpha);
    await sql()`delete from connections where id = ${other}`;
  });

  it("records a database that does not exist on its connection only, the server's others unaffected", async () => {
    const missing = await connect("no_such_database");
    const errorOf = async (connectionId: number) => {
      const [row] = await sql()<{ connection_error: string | null }[]>`
        select connection_error from connections where id = ${connectionId}`;
      return row?.connection_error ?? null;
    };
    const message = await waitFor("the error", async () => (await errorOf(missing)) ?? undefined);
    expect(message).toContain('database "no_such_database" does not exist');
    const before = (await runTimes(ids.alpha ?? 0)).length;
    await new Promise((done) => setTimeout(done, 1_000));
    expect((await runTimes(ids.alpha ?? 0)).length).toBeGreaterThan(before + 2);
    for (const database of ["alpha", "beta", "gamma", "delta"]) {
      expect(await errorOf(ids[database] ?? 0)).toBeNull();
    }
    expect(collector.connectionIds()).toContain(missing);
  });
});

describe("a probe the monitoring role may not run", () => {
  let env: TestEnvironment;
  let collector: RunningCollector;
  const warnings: string[] = [];
  const refusals: string[] = [];

  beforeAll(async () => {
    env = await openTestEnvironment();
    await insertConnection(env, {
      port: server.port,
      username: role,
      password: rolePassword,
      database_name: "alpha",
    });
    collector = await startCollector({
      datastore: env.datastore,
      logger: {
        debug(obj, msg) {
          if (msg?.startsWith("probe run refused")) {
            refusals.push(JSON.stringify(obj));
          }
        },
        info() {},
        warn(obj, msg) {
          warnings.push(`${msg}: ${JSON.stringify(obj)}`);
        },
        error() {},
      },
      secretKey: env.secretKey,
      // Reading pg_hba.conf needs a privilege the role lacks: refused at every run.
      probes: [registryProbe("pg_hba_file_rules")],
      intervalOverrides: { pg_hba_file_rules: 0.2 },
    });
  });

  afterAll(async () => {
    await collector?.stop();
    await env?.close();
  });

  it("is a warning once, not at every run", async () => {
    await waitFor("several refused runs", async () => (refusals.length >= 4 ? true : undefined));
    const refused = warnings.filter((warning) => warning.includes("pg_hba_file_rules"));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/^probe run refused: insufficient privilege .*permission denied/);
  });
});
