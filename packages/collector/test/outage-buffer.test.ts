import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Datastore,
  encryptSecret,
  loadSecretKey,
  migrateDatastore,
  openDatastore,
  type SecretKey,
} from "@dbmon/datastore";
import {
  machinePostgresBinariesAvailable,
  startPrimary,
  type TestServer,
  waitFor,
} from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CollectorLogger, probeRegistry, type RunningCollector, startCollector } from "../src/index.js";
import { type CollectedRun, OutageBuffer } from "../src/outage-buffer.js";

function recordingLogger(): CollectorLogger & { lines: { level: string; msg: string; obj: object }[] } {
  const lines: { level: string; msg: string; obj: object }[] = [];
  const at = (level: string) => (obj: object, msg: string) => {
    lines.push({ level, msg, obj });
  };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const probe = probeRegistry.find((candidate) => candidate.name === "pg_connectivity");
if (!probe) {
  throw new Error("pg_connectivity is missing from the registry");
}

function run(value: number, size = 100): CollectedRun {
  return {
    probe: probe as CollectedRun["probe"],
    connectionIds: [1],
    collectedAt: new Date(1_700_000_000_000 + value * 1000),
    rows: [{ value, padding: "x".repeat(size) }],
    serverWide: false,
  };
}

describe("the outage buffer", () => {
  it("keeps runs within its byte cap, dropping the oldest first, with one log line and a count", () => {
    const logger = recordingLogger();
    // Each run is about 330 bytes as JSON plus its overhead: three fit in 1,000 bytes.
    const buffer = new OutageBuffer(1_000, logger);
    for (let value = 1; value <= 5; value++) {
      buffer.add(run(value), "connect ECONNREFUSED");
    }
    expect(buffer.stats()).toMatchObject({ runs: 3, droppedRuns: 2 });
    expect(buffer.stats().bytes).toBeLessThanOrEqual(1_000);
    expect(logger.lines.filter((line) => line.level === "warn").map((line) => line.msg)).toEqual([
      "datastore unavailable: collected runs are kept in memory until it is back",
      "outage buffer full: the oldest collected runs are dropped",
    ]);
  });

  it("writes oldest first, and keeps the run that failed first in line", async () => {
    const logger = recordingLogger();
    const buffer = new OutageBuffer(1_000_000, logger);
    for (let value = 1; value <= 4; value++) {
      buffer.add(run(value), "connect ECONNREFUSED");
    }
    const written: number[] = [];
    let failAt = 3;
    const write = async (held: CollectedRun) => {
      const value = Number(held.rows?.[0]?.value);
      if (value === failAt) {
        throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
      }
      written.push(value);
    };
    await expect(buffer.drain(write)).rejects.toThrow("ECONNREFUSED");
    expect(written).toEqual([1, 2]);
    expect(buffer.holding).toBe(true);
    failAt = 0;
    await buffer.drain(write);
    expect(written).toEqual([1, 2, 3, 4]);
    expect(buffer.stats()).toEqual({ runs: 0, bytes: 0, droppedRuns: 0 });
    expect(logger.lines.at(-1)).toMatchObject({
      level: "info",
      msg: "datastore back: the collected runs kept in memory are stored",
      obj: { bufferedRuns: 4, droppedRuns: 0 },
    });
  });
});

/*
 * A collector on a private PostgreSQL as its datastore, monitoring another private server: the
 * datastore is stopped and started, and its sessions are terminated, under the running collector.
 */
describe.skipIf(!machinePostgresBinariesAvailable())("a collector whose datastore goes away", () => {
  let datastoreServer: TestServer;
  let monitored: TestServer;
  let datastore: Datastore;
  let secretKey: SecretKey;
  let dataDir: string;
  let collector: RunningCollector;
  let admin: postgres.Sql;
  let connectionId: number;
  const logger = recordingLogger();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on("unhandledRejection", onUnhandled);
    [datastoreServer, monitored, dataDir] = await Promise.all([
      startPrimary("replica"),
      startPrimary("replica"),
      mkdtemp(join(tmpdir(), "dbmon-outage-buffer-")),
    ]);
    await migrateDatastore(datastoreServer.url);
    datastore = await openDatastore({
      databaseUrl: datastoreServer.url,
      dataDir,
      migrate: false,
      listenCheckSeconds: 1,
    });
    secretKey = await loadSecretKey({ dataDir });
    admin = postgres(datastoreServer.url, { max: 1, onnotice: () => {} });
    const [row] = await admin<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, password_encrypted, sslmode,
        owner_username, is_monitored)
      values ('monitored', '127.0.0.1', ${monitored.port}, 'postgres', 'postgres',
        ${encryptSecret(secretKey, "trust")}, 'disable', 'admin', true)
      returning id`;
    connectionId = row?.id ?? 0;
    collector = await startCollector({
      datastore,
      logger,
      secretKey,
      probes: probeRegistry.filter((candidate) => candidate.name === "pg_connectivity"),
      intervalOverrides: { pg_connectivity: 0.25 },
      leaseSeconds: 30,
      topologySeconds: 0,
      rollupSeconds: 0,
    });
    await waitFor("the connection collected", async () =>
      collector.connectionIds().includes(connectionId) ? true : undefined,
    );
  }, 120_000);

  afterAll(async () => {
    await collector?.stop();
    await admin?.end({ timeout: 1 });
    await datastore?.close();
    await Promise.all([datastoreServer?.remove(), monitored?.remove()]);
    await rm(dataDir, { recursive: true, force: true });
    process.off("unhandledRejection", onUnhandled);
  });

  async function addConnection(name: string): Promise<number> {
    const [row] = await admin<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, password_encrypted, sslmode,
        owner_username, is_monitored)
      values (${name}, '127.0.0.1', ${monitored.port}, 'template1', 'postgres',
        ${encryptSecret(secretKey, "trust")}, 'disable', 'admin', true)
      returning id`;
    return row?.id ?? 0;
  }

  const collectedTimes = async (since: number) =>
    (
      await admin<{ at: number }[]>`
        select (extract(epoch from collected_at) * 1000)::float8 as at from metrics.pg_connectivity
        where connection_id = ${connectionId} and collected_at >= ${new Date(since).toISOString()}::timestamptz
        order by collected_at`
    ).map((row) => row.at);

  it("keeps what it collects while the datastore is stopped, and stores it once it is back", async () => {
    await waitFor("rows stored", async () => ((await collectedTimes(0)).length > 2 ? true : undefined));
    await admin.end({ timeout: 1 });
    const stoppedAt = Date.now();
    await datastoreServer.stop();
    await waitFor("runs buffered", async () => (collector.outageBuffer().runs >= 8 ? true : undefined));
    const startedAt = Date.now();
    await datastoreServer.start();
    admin = postgres(datastoreServer.url, { max: 1, onnotice: () => {} });
    await waitFor("the buffer written", async () => (collector.outageBuffer().runs === 0 ? true : undefined));
    const during = (await collectedTimes(stoppedAt)).filter((at) => at < startedAt);
    expect(during.length).toBeGreaterThanOrEqual(8);
    // Collected at its rhythm throughout: no gap of more than a few intervals, no run twice.
    const all = await collectedTimes(stoppedAt - 1000);
    expect(new Set(all).size).toBe(all.length);
    for (let index = 1; index < during.length; index++) {
      expect((during[index] ?? 0) - (during[index - 1] ?? 0)).toBeLessThan(1_500);
    }
    expect(collector.connectionIds()).toEqual([connectionId]);
    expect(collector.outageBuffer().droppedRuns).toBe(0);
    expect(logger.lines.map((line) => line.msg)).toContain(
      "datastore back: the collected runs kept in memory are stored",
    );
    // Collection goes on, under a lease this collector renewed.
    const backAt = Date.now();
    await waitFor("collections after the outage", async () =>
      (await collectedTimes(backAt)).length >= 3 ? true : undefined,
    );
    const [lease] = await admin<{ holder: string; valid: boolean }[]>`
      select holder, expires_at > now() as valid from collector_leases where connection_id = ${connectionId}`;
    expect(lease).toEqual({ holder: collector.instanceId, valid: true });
    expect(unhandled).toEqual([]);
  }, 90_000);

  it("listens again after the restart: a new connection is picked up at once, not at the next poll", async () => {
    // The check runs every second: after two, a subscription lost in the restart is back.
    await new Promise((done) => setTimeout(done, 2_500));
    const second = await addConnection("after-restart");
    await waitFor(
      "the new connection collected",
      async () => (collector.connectionIds().includes(second) ? true : undefined),
      1_500,
    );
    await admin`update connections set is_monitored = false where id = ${second}`;
    await waitFor(
      "the connection released",
      async () => (collector.connectionIds().includes(second) ? undefined : true),
      1_500,
    );
  }, 30_000);

  it("goes on through the termination of every session it has on the datastore", async () => {
    const before = Date.now();
    const sessions = (
      await admin<{ pid: number }[]>`
        select pid from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend'`
    ).map((session) => session.pid);
    expect(sessions.length).toBeGreaterThan(0);
    await admin`select pg_terminate_backend(pid) from unnest(${sessions}::int[]) as pid`;
    await waitFor("collections after the terminations", async () =>
      (await collectedTimes(before)).length >= 4 ? true : undefined,
    );
    // Its LISTEN session came back too: a new connection is picked up at once, not at the next poll.
    const second = await addConnection("after-terminations");
    await waitFor(
      "the new connection collected",
      async () => (collector.connectionIds().includes(second) ? true : undefined),
      1_500,
    );
    expect(unhandled).toEqual([]);
  }, 60_000);
});
