import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CollectorLogger,
  type ProbeDefinition,
  type RunningCollector,
  startCollector,
} from "../src/index.js";
import {
  insertConnection,
  MONITORED_SERVER_URL,
  openTestEnvironment,
  type TestEnvironment,
  waitFor,
} from "./support.js";

/** Database-scoped probes that record how many sessions their role has open on the server. */
function sessionCountingProbes(count: number): ProbeDefinition[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `session_count_${index}`,
    scope: "database" as const,
    intervalSeconds: 0.2,
    retentionDays: 1,
    snapshot: false,
    columns: [{ name: "sessions", type: "integer" as const }],
    queries: [
      {
        minVersion: 0,
        sql: `select (select count(*)::int from pg_stat_activity where usename = current_user) as sessions
              from pg_sleep(0.05)`,
      },
    ],
  }));
}

const slowProbe: ProbeDefinition = {
  name: "slow_probe",
  scope: "server",
  intervalSeconds: 60,
  retentionDays: 1,
  snapshot: false,
  columns: [{ name: "slept", type: "text" }],
  queries: [{ minVersion: 0, sql: "select pg_sleep(5)::text as slept" }],
};

describe("sessions on a monitored server", () => {
  let env: TestEnvironment;
  let admin: postgres.Sql;
  const role = `dbmon_limit_${randomBytes(4).toString("hex")}`;
  const collectors: RunningCollector[] = [];
  const warnings: string[] = [];
  const logger: CollectorLogger = {
    debug() {},
    info() {},
    warn(obj, msg) {
      warnings.push(`${msg}: ${JSON.stringify(obj)}`);
    },
    error() {},
  };

  beforeAll(async () => {
    env = await openTestEnvironment();
    admin = postgres(MONITORED_SERVER_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create role "${role}" login`);
  });

  afterAll(async () => {
    await Promise.all(collectors.map((collector) => collector.stop()));
    await admin?.unsafe(`drop role if exists "${role}"`);
    await admin?.end();
    await env?.close();
  });

  it("never opens more than 3 sessions on one server, over all its databases", async () => {
    const probes = sessionCountingProbes(5);
    const id = await insertConnection(env, { name: "limited", username: role, database_name: "postgres" });
    collectors.push(
      await startCollector({ datastore: env.datastore, logger, secretKey: env.secretKey, probes }),
    );
    const counts = await waitFor(
      "many concurrent runs",
      async () => {
        const rows = await env.datastore.sql.unsafe(
          probes
            .map((probe) => `select sessions from metrics."${probe.name}" where connection_id = $1`)
            .join(" union all "),
          [id],
        );
        return rows.length >= 100 ? rows.map((row) => Number(row.sessions)) : undefined;
      },
      20_000,
    );
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(2);
  });

  it("ends a run at its time limit, on the server as well", async () => {
    await Promise.all(collectors.splice(0).map((collector) => collector.stop()));
    const id = await insertConnection(env, { name: "slow", username: role, database_name: "postgres" });
    const collector = await startCollector({
      datastore: env.datastore,
      logger,
      secretKey: env.secretKey,
      probes: [slowProbe],
      runTimeoutSeconds: 1,
    });
    collectors.push(collector);
    await waitFor("the timeout", async () =>
      warnings.some(
        (warning) => warning.startsWith("probe run timed out") && warning.includes(`"connectionId":${id}`),
      )
        ? true
        : undefined,
    );
    await waitFor(
      "the server to stop the query",
      async () => {
        const running = await admin`
        select 1 from pg_stat_activity where usename = ${role} and state = 'active' and query like '%pg_sleep(5)%'`;
        return running.length === 0 ? true : undefined;
      },
      3_000,
    );
    const [stored] = await env.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from metrics.slow_probe where connection_id = ${id}`;
    expect(stored?.n).toBe(0);
  });
});
