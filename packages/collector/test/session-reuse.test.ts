import type { EmbeddedServer } from "@dbmon/datastore";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeRegistry, type RunningCollector, startCollector } from "../src/index.js";
import {
  insertConnection,
  openTestEnvironment,
  type PrivateServer,
  quietLogger,
  startPrivateServer,
  type TestEnvironment,
  waitFor,
} from "./support.js";

// A server of this file's own, so that the sessions each database saw (pg_stat_database.sessions)
// are the collector's alone. Many databases take turns at few sessions, as on a fleet's server.
const DATABASES = ["d1", "d2", "d3", "d4", "d5", "d6"];
// The 300 s probes of a database, every second here, and spock's 60 s ones, twice as often.
const BATCH = [
  "pg_stat_database",
  "pg_stat_database_conflicts",
  "pg_statio_all_sequences",
  "pg_stat_user_functions",
];
const SPOCK = ["spock_exception_log", "spock_resolutions"];

const role = { name: "dbmon_reuse", password: "Reuse-Pa55word" };
let privateServer: PrivateServer;
let server: EmbeddedServer;

beforeAll(async () => {
  privateServer = await startPrivateServer("reuse", role, DATABASES);
  server = privateServer.server;
});

afterAll(async () => {
  await privateServer?.stop();
});

describe("a connection's probes due together", () => {
  let env: TestEnvironment;
  let collector: RunningCollector | undefined;
  const ids = new Map<string, number>();

  beforeAll(async () => {
    env = await openTestEnvironment();
    for (const database of DATABASES) {
      ids.set(
        database,
        await insertConnection(env, {
          port: server.port,
          database_name: database,
          username: role.name,
          password: role.password,
        }),
      );
    }
  });

  afterAll(async () => {
    await collector?.stop();
    await env?.close();
  });

  it("run on one session each time, and a probe with nothing to read opens none", async () => {
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      probes: probeRegistry.filter((probe) => [...BATCH, ...SPOCK].includes(probe.name)),
      intervalOverrides: {
        ...Object.fromEntries(BATCH.map((name) => [name, 1])),
        ...Object.fromEntries(SPOCK.map((name) => [name, 0.5])),
      },
      maxSessionsPerServer: 2,
    });
    const sql = env.datastore.sql;
    // The lowest id also collects the unregistered database (postgres): its runs visit two.
    const measured = DATABASES.slice(1).map((name) => ids.get(name) ?? 0);
    await waitFor(
      "ten rounds of every connection's probes",
      async () => {
        const [row] = await sql<{ rounds: number }[]>`
          select min(n)::int as rounds from (
            select count(distinct collected_at) as n from metrics.pg_stat_database
            where connection_id = any(${measured}::int[]) group by connection_id) runs
          having count(*) = ${measured.length}`;
        return (row?.rounds ?? 0) >= 10 ? row : undefined;
      },
      60_000,
    );
    await collector.stop();
    collector = undefined;

    // spock is not installed: its probes still record each run (an empty one), without a session.
    const spockRuns = await sql<{ probe_name: string; connections: number }[]>`
      select probe_name, count(*)::int as connections from probe_runs
      where probe_name = any(${SPOCK}::text[]) and connection_id = any(${measured}::int[])
        and last_run_at > now() - interval '5 seconds'
      group by probe_name order by probe_name`;
    expect(spockRuns).toEqual(SPOCK.map((probe_name) => ({ probe_name, connections: measured.length })));

    const runs = await sql<{ database: string; runs: number }[]>`
      select c.database_name as database, count(distinct s.collected_at)::int as runs
      from connections c join metrics.pg_stat_database s on s.connection_id = c.id
      where c.id = any(${measured}::int[]) group by c.database_name`;
    const rounds = new Map(runs.map((row) => [row.database, row.runs]));
    // The sessions are counted when they end: every one has, the collector having stopped.
    const admin = postgres(server.url, { max: 1, onnotice: () => {} });
    try {
      const sessions = await waitFor(
        "the ended sessions counted",
        async () => {
          const rows = await admin<{ datname: string; sessions: number; active: number }[]>`
            select d.datname::text as datname, d.sessions::int as sessions,
              (select count(*)::int from pg_stat_activity a where a.datname = d.datname) as active
            from pg_stat_database d where d.datname = any(${DATABASES.slice(1)}::text[])`;
          return rows.every((row) => row.active === 0) ? rows : undefined;
        },
        10_000,
      );
      for (const { datname, sessions: opened } of sessions) {
        const batches = rounds.get(datname) ?? 0;
        expect(batches).toBeGreaterThanOrEqual(10);
        // Each round ran four probes, and spock's twice as often, with fewer sessions than
        // databases: about one session per round (start-up and a round whose session a
        // neighbour took add a few), not one per run.
        expect(opened, `${datname}: ${opened} sessions for ${batches} rounds`).toBeLessThanOrEqual(
          Math.ceil(batches * 1.25) + 2,
        );
      }
    } finally {
      await admin.end();
    }
  }, 120_000);
});
