import { type AddressInfo, createServer, type Socket } from "node:net";
import { encryptSecret, loadSecretKey } from "@dbmon/datastore";
import { machinePostgresAvailable } from "@dbmon/datastore/testing";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type CollectorLogger, probeRegistry, type RunningCollector, startCollector } from "../src/index.js";
import { insertConnection, openTestEnvironment, type TestEnvironment, waitFor } from "./support.js";

// Monitors the machine's PostgreSQL 15 (CI has it); a machine with only Node.js skips this file.
const machinePostgres = await machinePostgresAvailable();

describe.skipIf(!machinePostgres)("an unreachable server", () => {
  let env: TestEnvironment;
  let collector: RunningCollector;
  const failedAttempts: number[] = [];
  /** What each failed attempt logged, to say which ones a failing count saw. */
  const attemptLog: string[] = [];
  const logger: CollectorLogger = {
    debug(obj, msg) {
      if (msg === "connection attempt failed") {
        failedAttempts.push(Date.now());
        attemptLog.push(`${new Date().toISOString()} ${JSON.stringify(obj)}`);
      }
    },
    info() {},
    warn() {},
    error() {},
  };

  beforeAll(async () => {
    env = await openTestEnvironment();
    collector = await startCollector({
      datastore: env.datastore,
      logger,
      secretKey: env.secretKey,
      probes: probeRegistry.filter((probe) => ["pg_connectivity", "pg_settings"].includes(probe.name)),
      intervalOverrides: { pg_connectivity: 0.1, pg_settings: 0.1 },
      backoffInitialSeconds: 0.5,
      backoffMaxSeconds: 2,
      // Polls come every 20 minutes, so a removal noticed within a test's wait came by notification.
      leaseSeconds: 3600,
    });
  });

  afterAll(async () => {
    await collector?.stop();
    await env?.close();
  });

  async function connectionError(id: number): Promise<string | null | undefined> {
    const [row] = await env.datastore.sql<{ connection_error: string | null }[]>`
      select connection_error from connections where id = ${id}`;
    return row?.connection_error;
  }

  it("is recorded on the connection, retried with exponential backoff, and cleared on recovery", async () => {
    const password = "Sup3r-Secret-Pa55";
    const id = await insertConnection(env, { port: 1, database_name: "postgres", password });
    const message = await waitFor(
      "the connection error",
      async () => (await connectionError(id)) ?? undefined,
    );
    expect(message).toBe("connection error: connect ECONNREFUSED 127.0.0.1:1");
    expect(message).not.toContain(password);

    // Probes want a run every 100 ms; while the server is down attempts come after 0.5, 1, 2, 2 s.
    const firstFailure = failedAttempts[0] ?? Date.now();
    await new Promise((done) => setTimeout(done, 4_000));
    const attempts = failedAttempts.filter((at) => at >= firstFailure && at < firstFailure + 4_000);
    expect(attempts.length, attemptLog.join("\n")).toBeGreaterThanOrEqual(3);
    expect(attempts.length, attemptLog.join("\n")).toBeLessThanOrEqual(5);
    for (let index = 2; index < attempts.length; index++) {
      expect((attempts[index] ?? 0) - (attempts[index - 1] ?? 0)).toBeGreaterThanOrEqual(900);
    }

    // The fix notifies the collector, which reconnects at once and clears the error.
    const fixedAt = Date.now();
    await env.datastore.sql`update connections set port = 5432 where id = ${id}`;
    await waitFor("the error cleared", async () => ((await connectionError(id)) === null ? true : undefined));
    expect(Date.now() - fixedAt).toBeLessThan(2_000);
  });

  it("a server that never answers delays no other server", async () => {
    // A loopback port that accepts connections and never answers: the startup handshake hangs until
    // the connect timeout, while the healthy server keeps being collected every 100 ms (its
    // server-wide rows under its representative, an earlier test's connection to the same server).
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((listening) => silent.listen(0, "127.0.0.1", listening));
    onTestFinished(() => {
      for (const socket of sockets) {
        socket.destroy();
      }
      silent.close();
    });
    const hanging = await insertConnection(env, {
      name: "silent",
      port: (silent.address() as AddressInfo).port,
      database_name: "postgres",
    });
    const healthy = await insertConnection(env, { name: "healthy", database_name: "postgres" });
    const since = new Date().toISOString();
    await new Promise((done) => setTimeout(done, 1_500));
    const [row] = await env.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from metrics.pg_connectivity
      where connection_id = dbmon_server_connection(${healthy}) and collected_at >= ${since}::timestamptz`;
    expect(row?.n).toBeGreaterThanOrEqual(5);
    const [hangingRows] = await env.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from metrics.pg_connectivity where connection_id = ${hanging}`;
    expect(hangingRows?.n).toBe(0);
  });

  it("stops collecting a connection on the notification of its removal or of monitoring being turned off, not at the next poll", async () => {
    const removed = await insertConnection(env, { name: "removed", database_name: "postgres" });
    const unmonitored = await insertConnection(env, { name: "unmonitored", database_name: "postgres" });
    await waitFor("both collected", async () =>
      [removed, unmonitored].every((id) => collector.connectionIds().includes(id)) ? true : undefined,
    );
    await env.datastore.sql`update connections set is_monitored = false where id = ${unmonitored}`;
    await env.datastore.sql`delete from connections where id = ${removed}`;
    await waitFor("both dropped", async () =>
      [removed, unmonitored].some((id) => collector.connectionIds().includes(id)) ? undefined : true,
    );
    const since = new Date().toISOString();
    await new Promise((done) => setTimeout(done, 500));
    const [row] = await env.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from metrics.pg_connectivity
      where connection_id = ${unmonitored} and collected_at >= ${since}::timestamptz`;
    expect(row?.n).toBe(0);
    await waitFor("the lease given up", async () => {
      const leases = await env.datastore
        .sql`select 1 from collector_leases where connection_id = ${unmonitored}`;
      return leases.length === 0 ? true : undefined;
    });
  });

  it("records a password it cannot decrypt (another secret) and collects once it is re-entered", async () => {
    const otherKey = await loadSecretKey({ secret: "another installation", dataDir: env.dataDir });
    const id = await insertConnection(env, { name: "foreign secret", database_name: "postgres" });
    await env.datastore.sql`
      update connections set password_encrypted = ${encryptSecret(otherKey, "whatever")} where id = ${id}`;
    const message = await waitFor("the error", async () => (await connectionError(id)) ?? undefined);
    expect(message).toBe(
      "connection error: The encrypted secret cannot be decrypted: wrong key or altered data",
    );
    await env.datastore.sql`
      update connections set password_encrypted = ${encryptSecret(env.secretKey, "whatever")} where id = ${id}`;
    await waitFor("the error cleared", async () => ((await connectionError(id)) === null ? true : undefined));
  });
});
