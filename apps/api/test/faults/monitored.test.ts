import { startAlerter } from "@dbmon/alerter";
import { type CollectorLogger, probeRegistry, type RunningCollector, startCollector } from "@dbmon/collector";
import { encryptSecret, type SecretKey } from "@dbmon/datastore";
import {
  execStatements,
  machinePostgresBinariesAvailable,
  startPrimary,
  startStandby,
  type TestServer,
  waitFor,
} from "@dbmon/datastore/testing";
import { createOutboundHostPolicy } from "@dbmon/monitoring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "../support.js";
import { type StallingProxy, startStallingProxy } from "./stalling-proxy.js";

/*
 * Monitored servers that fail under a running collector and alerter (in this process, on a test
 * datastore; the monitored servers are private PostgreSQL 15 servers): a primary that restarts, a
 * standby promoted after its primary went down, and a server behind a proxy that stalls without
 * closing its sockets.
 */
const quiet: CollectorLogger = { debug() {}, info() {}, warn() {}, error() {} };

describe.skipIf(!machinePostgresBinariesAvailable())("monitored servers that fail", () => {
  let t: TestApp;
  let root: TestUser;
  let secretKey: SecretKey;
  const servers: TestServer[] = [];
  const collectors: RunningCollector[] = [];

  async function addConnection(name: string, port: number): Promise<number> {
    const [row] = await t.datastore.sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, password_encrypted, sslmode,
        owner_username, is_shared, is_monitored)
      values (${name}, '127.0.0.1', ${port}, 'postgres', 'postgres', ${encryptSecret(secretKey, "trust")},
        'disable', 'root', true, true)
      returning id`;
    const id = row?.id ?? 0;
    t.connections.push({ id, ownerUsername: "root", isShared: true });
    return id;
  }

  async function collect(
    options: { runTimeoutSeconds?: number; connectTimeoutSeconds?: number; logger?: CollectorLogger } = {},
  ) {
    const collector = await startCollector({
      datastore: t.datastore,
      logger: options.logger ?? quiet,
      secretKey,
      probes: probeRegistry.filter((probe) => ["pg_connectivity", "pg_node_role"].includes(probe.name)),
      intervalOverrides: { pg_connectivity: 0.5, pg_node_role: 0.5 },
      topologySeconds: 0,
      rollupSeconds: 0,
      connectTimeoutSeconds: options.connectTimeoutSeconds ?? 2,
      runTimeoutSeconds: options.runTimeoutSeconds ?? 5,
      backoffInitialSeconds: 0.5,
      backoffMaxSeconds: 1,
    });
    collectors.push(collector);
    return collector;
  }

  const latestRole = async (id: number) => {
    const [row] = await t.datastore.sql<
      { primary_role: string; is_in_recovery: boolean; timeline_id: number | null; started: string }[]
    >`
      select primary_role, is_in_recovery, timeline_id, postmaster_start_time::text as started
      from metrics.pg_node_role where connection_id = ${id} order by collected_at desc limit 1`;
    return row;
  };
  const connectionError = async (id: number) => {
    const [row] = await t.datastore.sql<{ connection_error: string | null }[]>`
      select connection_error from connections where id = ${id}`;
    return row?.connection_error ?? null;
  };
  const rowsSince = async (id: number, since: number) => {
    const [row] = await t.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from metrics.pg_connectivity
      where connection_id = ${id} and collected_at >= ${new Date(since).toISOString()}::timestamptz`;
    return row?.n ?? 0;
  };

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    // The app's key: its live reads decrypt the passwords the test stores.
    secretKey = t.services.secretKey;
  });

  afterAll(async () => {
    const steps: (() => unknown)[] = [
      () => Promise.all(collectors.map((collector) => collector.stop())),
      () => Promise.all(servers.map((server) => server.remove())),
      () => t?.close(),
    ];
    for (const step of steps) {
      await Promise.resolve()
        .then(step)
        .catch(() => {});
    }
  });

  it("a primary that restarts, and a standby promoted after its primary went down: roles, topology and alerts follow", async () => {
    const primary = await startPrimary("replica");
    servers.push(primary);
    const standby = await startStandby(primary);
    servers.push(standby);
    const primaryId = await addConnection("app-primary", primary.port);
    const standbyId = await addConnection("app-standby", standby.port);
    const collector = await collect();
    const alerter = startAlerter({
      datastore: t.datastore,
      logger: quiet,
      secretKey,
      hosts: createOutboundHostPolicy({ allowed: "127.0.0.1" }),
      timers: false,
      anomaly: false,
    });
    try {
      const before = await waitFor("both roles collected", async () => {
        const [p, s] = [await latestRole(primaryId), await latestRole(standbyId)];
        return p?.primary_role === "binary_primary" && s?.primary_role === "binary_standby"
          ? { p, s }
          : undefined;
      });
      expect(await collector.detectTopology()).toBe(true);
      const streams = () => t.datastore.sql<{ source: number; target: number }[]>`
        select source_connection_id as source, target_connection_id as target from cluster_node_relationships
        where relationship_type = 'streams_from' order by id`;
      expect(await streams()).toEqual([{ source: standbyId, target: primaryId }]);

      // The primary restarts: collected again after, a new start time, no error left behind.
      await primary.restart();
      const restartedAt = Date.now();
      await waitFor("the primary collected after its restart", async () =>
        (await rowsSince(primaryId, restartedAt)) >= 2 && (await connectionError(primaryId)) === null
          ? true
          : undefined,
      );
      await waitFor("its new start time", async () =>
        (await latestRole(primaryId))?.started !== before.p.started ? true : undefined,
      );

      // The primary goes down and the standby is promoted.
      await primary.stop();
      await execStatements(standby.url, "select pg_promote(wait => true)");
      const promoted = await waitFor("the promoted standby's role", async () => {
        const role = await latestRole(standbyId);
        return role && !role.is_in_recovery ? role : undefined;
      });
      expect(promoted.primary_role).toBe("standalone");
      expect(promoted.timeline_id ?? 0).toBeGreaterThan(before.s.timeline_id ?? 0);
      await waitFor("the old primary marked down", async () =>
        (await connectionError(primaryId)) !== null ? true : undefined,
      );
      expect(await collector.detectTopology()).toBe(true);
      // It no longer streams from the old primary.
      expect(await streams()).toEqual([]);
      await alerter.evaluate();
      const alerts = await t.datastore.sql<
        { connection_id: number; alert_type: string; metric_name: string | null }[]
      >`
        select connection_id, alert_type, metric_name from alerts where status = 'active' order by id`;
      expect(alerts).toEqual([{ connection_id: primaryId, alert_type: "connection", metric_name: null }]);
      // Through the API, as a user sees it.
      const info = await requestJson(t.app, `/api/v1/connections/${standbyId}`, { token: root.token });
      expect(info.status).toBe(200);
    } finally {
      await alerter.stop();
    }
  });

  describe("a server behind a proxy that stalls without closing its sockets", () => {
    let server: TestServer;
    let proxy: StallingProxy;
    let id: number;
    let collector: RunningCollector;
    const timedOut: number[] = [];
    // A cancel request that cannot reach the server rejected where no one handled it (a patched
    // postgres.js bug): in `dbmon collector` that ended the process.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);

    beforeAll(async () => {
      process.on("unhandledRejection", onUnhandled);
      server = await startPrimary("replica");
      servers.push(server);
      proxy = await startStallingProxy(server.port);
      id = await addConnection("stalling", proxy.port);
      // A connection attempt gives up before a run does, as with the defaults (10 s and 60 s).
      collector = await collect({
        runTimeoutSeconds: 3,
        connectTimeoutSeconds: 1,
        logger: {
          ...quiet,
          warn(_entry, message) {
            if (message === "probe run timed out") {
              timedOut.push(Date.now());
            }
          },
        },
      });
      await waitFor("collected through the proxy", async () =>
        (await rowsSince(id, 0)) >= 2 ? true : undefined,
      );
    });

    afterAll(async () => {
      await proxy?.close();
      process.off("unhandledRejection", onUnhandled);
    });

    it("ends every call at its deadline: probe runs, connection attempts, the API's live reads", async () => {
      proxy.stall("queries");
      const stalledAt = Date.now();
      // Runs stalled mid-query end at their deadline (3 s, a few in a row on a busy machine), not never.
      await waitFor(
        "a run ended by its deadline",
        async () => (timedOut.length > 0 ? true : undefined),
        12_000,
      );
      expect((timedOut[0] ?? 0) - stalledAt).toBeLessThan(10_000);
      // The API's live read of the server's databases ends too.
      const started = Date.now();
      const databases = await requestJson(t.app, `/api/v1/connections/${id}/databases`, {
        token: root.token,
      });
      expect(databases.status).toBe(500);
      expect(await databases.json()).toEqual({ error: "Failed to list databases" });
      expect(Date.now() - started).toBeLessThan(13_000);

      // Nothing answers at all now, connection attempts included: the server is marked down.
      proxy.stall("all");
      await waitFor(
        "the connection error recorded",
        async () => ((await connectionError(id)) !== null ? true : undefined),
        20_000,
      );
      // The collector still stops promptly, with sessions stuck on the dead path.
      proxy.resume();
      const resumedAt = Date.now();
      await waitFor(
        "collected again",
        async () =>
          (await rowsSince(id, resumedAt)) >= 1 && (await connectionError(id)) === null ? true : undefined,
        20_000,
      );
      proxy.stall("queries");
      const stopping = Date.now();
      await collector.stop();
      expect(Date.now() - stopping).toBeLessThan(5_000);
      expect(unhandled).toEqual([]);
    });
  });
});
