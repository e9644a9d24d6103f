import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { machinePostgresAvailable } from "@dbmon/datastore/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeRegistry, type RunningCollector, startCollector } from "../src/index.js";
import {
  insertConnection,
  openTestEnvironment,
  quietLogger,
  type TestEnvironment,
  waitFor,
} from "./support.js";

// Monitors the machine's PostgreSQL 15 (CI has it); a machine with only Node.js skips this file.
const machinePostgres = await machinePostgresAvailable();

// Short enough for a quick test, long enough that a busy CI machine renews leases in time.
const LEASE_SECONDS = 4;
/** Scheduling slack on a loaded 2-core machine, beyond the lease period itself. */
const SLACK_MS = 2_000;
const INTERVAL_SECONDS = 1;
const probes = probeRegistry.filter((probe) => probe.name === "pg_connectivity");
const intervals = { pg_connectivity: INTERVAL_SECONDS };
const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));

describe.skipIf(!machinePostgres)("leases: each connection collected by exactly one collector", () => {
  let env: TestEnvironment;
  let dataDir: string;
  let connectionIds: number[];
  const started: RunningCollector[] = [];
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    env = await openTestEnvironment();
    dataDir = env.dataDir;
    connectionIds = [];
    for (const name of ["one", "two", "three"]) {
      // Three servers to dbmon (addresses of their own), each with its own server-wide rows.
      connectionIds.push(
        await insertConnection(env, {
          name,
          host: `${name}.test`,
          hostaddr: "127.0.0.1",
          database_name: "postgres",
        }),
      );
    }
  });

  afterAll(async () => {
    child?.kill("SIGKILL");
    await Promise.all(started.map((collector) => collector.stop()));
    await env?.close();
  });

  async function collector(instanceId: string, leaseSeconds = LEASE_SECONDS): Promise<RunningCollector> {
    const running = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      instanceId,
      leaseSeconds,
      probes,
      intervalOverrides: intervals,
    });
    started.push(running);
    return running;
  }

  async function holders(): Promise<Map<number, string>> {
    const rows = await env.datastore.sql<{ connection_id: number; holder: string }[]>`
      select connection_id, holder from collector_leases where expires_at > now()`;
    return new Map(rows.map((row) => [row.connection_id, row.holder]));
  }

  /** Collection times per connection, in ms. */
  async function collections(): Promise<Map<number, number[]>> {
    const rows = await env.datastore.sql<{ connection_id: number; at: number }[]>`
      select connection_id, (extract(epoch from collected_at) * 1000)::float8 as at
      from metrics.pg_connectivity order by connection_id, collected_at`;
    const byConnection = new Map<number, number[]>();
    for (const row of rows) {
      byConnection.set(row.connection_id, [...(byConnection.get(row.connection_id) ?? []), row.at]);
    }
    return byConnection;
  }

  function expectOncePerInterval(times: number[]): void {
    for (let index = 1; index < times.length; index++) {
      expect((times[index] ?? 0) - (times[index - 1] ?? 0)).toBeGreaterThan(INTERVAL_SECONDS * 1000 * 0.8);
    }
  }

  it("a killed collector's connections are taken over within one lease period, never collected twice", async () => {
    child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("./fixtures/collector-process.ts", import.meta.url))],
      {
        cwd: repositoryRoot,
        env: {
          ...process.env,
          COLLECTOR_DATASTORE_URL: env.testDb.url,
          COLLECTOR_DATA_DIR: dataDir,
          COLLECTOR_INSTANCE_ID: "process-a",
          COLLECTOR_LEASE_SECONDS: String(LEASE_SECONDS),
          COLLECTOR_PROBES: "pg_connectivity",
          COLLECTOR_INTERVALS: JSON.stringify(intervals),
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    await waitFor(
      "the collector process to hold every lease",
      async () => {
        const current = await holders();
        return connectionIds.every((id) => current.get(id) === "process-a") ? true : undefined;
      },
      20_000,
    );

    // A second collector gets its fair share: A gives back one of its three connections.
    const b = await collector("in-test-b");
    await waitFor("the connections shared out", async () => {
      const current = [...(await holders()).values()];
      return current.filter((holder) => holder === "process-a").length === 2 &&
        current.filter((holder) => holder === "in-test-b").length === 1 &&
        b.connectionIds().length === 1
        ? true
        : undefined;
    });
    await new Promise((done) => setTimeout(done, LEASE_SECONDS * 1000));

    child.kill("SIGKILL");
    const killedAt = Date.now();
    await exited;
    await waitFor("B to take every connection over", async () =>
      connectionIds.every((id) => b.connectionIds().includes(id)) ? true : undefined,
    );
    expect(Date.now() - killedAt).toBeLessThanOrEqual(LEASE_SECONDS * 1000 + SLACK_MS);
    expect([...(await holders()).values()]).toEqual(connectionIds.map(() => "in-test-b"));

    // B continues the rhythm: after a few intervals, no connection was ever collected twice in one.
    const before = await collections();
    await waitFor("B's collections", async () => {
      const after = await collections();
      return connectionIds.every((id) => (after.get(id)?.length ?? 0) >= (before.get(id)?.length ?? 0) + 2)
        ? after
        : undefined;
    });
    const all = await collections();
    for (const id of connectionIds) {
      expectOncePerInterval(all.get(id) ?? []);
    }
  });

  it("collectors share the connections evenly; a clean stop hands them over at once", async () => {
    const c = await collector("in-test-c", 30);
    const d = await collector("in-test-d", 30);
    // Three collectors (B of the previous test, C and D), three connections: one each.
    const b = started[0];
    await waitFor("one connection per collector", async () =>
      [b, c, d].every((running) => running?.connectionIds().length === 1) ? true : undefined,
    );
    const owned = [b, c, d].flatMap((running) => running?.connectionIds() ?? []);
    expect(owned.sort()).toEqual([...connectionIds].sort());

    const startedAt = Date.now();
    await Promise.all(started.filter((running) => running !== d).map((running) => running.stop()));
    await waitFor("D to hold every connection", async () =>
      connectionIds.every((id) => d.connectionIds().includes(id)) ? true : undefined,
    );
    // Far sooner than the 30 s lease: the release notified D.
    expect(Date.now() - startedAt).toBeLessThan(5_000 + SLACK_MS);
    await new Promise((done) => setTimeout(done, 2_500));
    const all = await collections();
    for (const id of connectionIds) {
      expectOncePerInterval(all.get(id) ?? []);
    }
  });
});
