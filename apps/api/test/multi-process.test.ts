import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createTestDatabase,
  machinePostgresBinariesAvailable,
  startLoopbackPrimary,
  type TestDatabase,
  type TestServer,
  waitFor,
} from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DbmonProcess, startDbmon, stopAll } from "./dbmon-processes.js";

/**
 * Two `dbmon serve`, two `dbmon collector` and two `dbmon alerter` processes on one datastore,
 * monitoring 50 databases: what docs/operations.md promises of several processes.
 *
 * The 50 monitored databases live on a PostgreSQL server of the test's own (the machine's binaries):
 * a collector keeps a session per monitored database, which the shared server's connection limit
 * could not spare next to the datastore and other tests. Each is registered at a loopback address of
 * its own (`hostaddr` 127.0.1.N, the server listening on every address): to dbmon, connections at one
 * address are one server, whose server-wide rows and alerts are stored once, and this test is about
 * collectors and alerters sharing connections, not connections sharing a server
 * (packages/collector/test/server-groups.test.ts, apps/api/test/shared-server.test.ts).
 */
const DATABASES = 50;
/** Probe interval (s): the gap bound (two intervals) leaves one lease period plus slack for a takeover. */
const INTERVAL_SECONDS = 10;
/** DBMON_COLLECTOR_LEASE_SECONDS: renewed every third of it. */
const LEASE_SECONDS = 4;
/** DBMON_EVALUATION_INTERVAL_SECONDS. */
const EVALUATION_SECONDS = 2;
/** Scheduling slack on a loaded 2-core machine, beyond the lease period itself. */
const SLACK_MS = 2_000;
/** The probes collected, with the columns that identify one row of one collection. */
const PROBES: Record<string, string> = {
  pg_connectivity: "connection_id, collected_at",
  pg_settings: "connection_id, collected_at, name",
};
/** Waits for conditions of the shared processes: generous on a loaded machine, polled twice a second. */
const waitForCondition = <T>(what: string, check: () => Promise<T | undefined>) =>
  waitFor(what, check, 60_000, 500);
const ADMIN = { username: "admin", password: "multi-process-Admin-1" };

interface Sample {
  connection_id: number;
  at: number;
}

describe.skipIf(!machinePostgresBinariesAvailable())(
  "several processes sharing one datastore",
  { timeout: 120_000 },
  () => {
    let database: TestDatabase;
    let datastore: postgres.Sql;
    let monitored: TestServer;
    let dataDir: string;
    let receiver: Server;
    let webhookUrl: string;
    /** Webhook bodies received, in order. */
    const deliveries: { event: string; alert_id: number }[] = [];
    const processes: DbmonProcess[] = [];
    let apis: [string, string];
    const collectors: { process: DbmonProcess; instanceId: string }[] = [];
    let collectorEnv: Record<string, string>;
    let token: string;
    let connectionIds: number[] = [];

    beforeAll(async () => {
      [database, dataDir] = await Promise.all([
        createTestDatabase(),
        mkdtemp(join(tmpdir(), "dbmon-multi-")),
      ]);
      datastore = postgres(database.url, { max: 2, onnotice: () => {} });
      receiver = createServer((request, response) => {
        let body = "";
        request.setEncoding("utf8").on("data", (chunk: string) => {
          body += chunk;
        });
        request.on("end", () => {
          deliveries.push(JSON.parse(body) as { event: string; alert_id: number });
          response.writeHead(200).end("ok");
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

      const env = {
        DBMON_DATABASE_URL: database.url,
        DBMON_DATA_DIR: dataDir,
        DBMON_SECRET: "multi-process-test-secret",
        DBMON_LOG_LEVEL: "info",
        DBMON_PORT: "0",
        DBMON_COLLECTOR: "false",
        DBMON_ALERTER: "false",
        DBMON_MONITOR_SELF: "false",
        DBMON_ADMIN_USERNAME: ADMIN.username,
        DBMON_ADMIN_PASSWORD: ADMIN.password,
        DBMON_ALLOWED_HOSTS: "127.0.0.0/8",
        DBMON_NOTIFICATION_ALLOWED_HOSTS: "127.0.0.1",
        DBMON_COLLECTOR_LEASE_SECONDS: String(LEASE_SECONDS),
        DBMON_EVALUATION_INTERVAL_SECONDS: String(EVALUATION_SECONDS),
      };
      // All six at once, as a deployment's units start: migrations and the first superuser are
      // applied once among them.
      for (const command of ["serve", "serve", "collector", "collector", "alerter", "alerter"]) {
        processes.push(startDbmon(command, env));
      }
      collectorEnv = env;
      // Meanwhile, the databases to monitor.
      monitored = await startLoopbackPrimary({ max_connections: 250 });
      const admin = postgres(monitored.url, { max: 1, onnotice: () => {} });
      try {
        for (let index = 1; index <= DATABASES; index++) {
          await admin.unsafe(`create database monitored_${index} strategy file_copy`);
        }
      } finally {
        await admin.end();
      }
      const ready = await Promise.all(
        processes.map((p) =>
          p.logged(
            {
              serve: "dbmon API listening",
              collector: "dbmon collector running",
              alerter: "dbmon alerter running",
            }[p.command] ?? "",
          ),
        ),
      );
      apis = [String(ready[0]?.address), String(ready[1]?.address)];
      collectors.push(
        { process: processes[2] as DbmonProcess, instanceId: String(ready[2]?.instanceId) },
        { process: processes[3] as DbmonProcess, instanceId: String(ready[3]?.instanceId) },
      );
    }, 120_000);

    afterAll(async () => {
      await stopAll(processes);
      await new Promise((resolve) => receiver?.close(resolve));
      await datastore?.end();
      await monitored?.remove();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }, 60_000);

    async function call(api: string, method: string, path: string, body?: unknown, headers = {}) {
      const response = await fetch(`${api}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return response;
    }

    async function json<T>(api: string, method: string, path: string, body?: unknown): Promise<T> {
      const response = await call(api, method, path, body);
      const text = await response.text();
      if (!response.ok) {
        throw new Error(`${method} ${path}: ${response.status} ${text}`);
      }
      return JSON.parse(text) as T;
    }

    /** Collection times of a probe, per connection, oldest first. */
    async function samples(probe: string): Promise<Map<number, number[]>> {
      const rows = await datastore.unsafe<Sample[]>(
        `select connection_id, (extract(epoch from collected_at) * 1000)::float8 as at
         from metrics.${probe} order by connection_id, collected_at`,
      );
      const byConnection = new Map<number, number[]>(connectionIds.map((id) => [id, []]));
      for (const row of rows) {
        byConnection.get(row.connection_id)?.push(row.at);
      }
      return byConnection;
    }

    async function holders(): Promise<Map<number, string>> {
      const rows = await datastore<{ connection_id: number; holder: string }[]>`
        select connection_id, holder from collector_leases where expires_at > now()`;
      return new Map(rows.map((row) => [row.connection_id, row.holder]));
    }

    /** No two rows of one collection, and no two collections of a connection within one interval. */
    async function expectCollectedOnceAtATime(): Promise<void> {
      for (const [probe, key] of Object.entries(PROBES)) {
        const duplicates = await datastore.unsafe(
          `select ${key}, count(*)::int as n from metrics.${probe} group by ${key} having count(*) > 1`,
        );
        expect(duplicates, `duplicate ${probe} rows`).toEqual([]);
      }
      for (const [id, times] of await samples("pg_connectivity")) {
        for (let index = 1; index < times.length; index++) {
          const apart = (times[index] ?? 0) - (times[index - 1] ?? 0);
          expect(apart, `connection ${id}: collections ${apart} ms apart`).toBeGreaterThan(
            INTERVAL_SECONDS * 1000 * 0.8,
          );
        }
      }
    }

    /** No connection went longer than two probe intervals without a collection. */
    async function expectNoGap(): Promise<void> {
      for (const [id, times] of await samples("pg_connectivity")) {
        for (let index = 1; index < times.length; index++) {
          const gap = (times[index] ?? 0) - (times[index - 1] ?? 0);
          expect(gap, `connection ${id}: ${gap} ms between collections`).toBeLessThanOrEqual(
            2 * INTERVAL_SECONDS * 1000,
          );
        }
      }
    }

    it("both API processes serve the same sessions", async () => {
      const [one, two] = apis;
      const login = await call(one, "POST", "/api/v1/auth/login", ADMIN);
      expect(login.status).toBe(200);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      expect(cookie).toMatch(/^session_token=/);
      token = ((await login.json()) as { session_token: string }).session_token;
      for (const api of apis) {
        expect((await call(api, "GET", "/api/v1/connections")).status).toBe(200);
        const byCookie = await fetch(`${api}/api/v1/connections`, { headers: { cookie } });
        expect(byCookie.status).toBe(200);
      }

      // A second session, logged out on the other process: refused by both, though both have used it.
      const other = (await (await call(two, "POST", "/api/v1/auth/login", ADMIN)).json()) as {
        session_token: string;
      };
      const asOther = { authorization: `Bearer ${other.session_token}` };
      for (const api of apis) {
        expect((await call(api, "GET", "/api/v1/connections", undefined, asOther)).status).toBe(200);
      }
      expect((await call(one, "POST", "/api/v1/auth/logout", undefined, asOther)).status).toBe(200);
      for (const api of apis) {
        expect((await call(api, "GET", "/api/v1/connections", undefined, asOther)).status).toBe(401);
      }
      expect((await call(two, "GET", "/api/v1/connections")).status).toBe(200);
    });

    it("collects every database by exactly one collector at a time", async () => {
      const [one, two] = apis;
      // Short intervals for the two probes this test reads; every other probe off.
      const configs = await json<{ id: number; name: string }[]>(one, "GET", "/api/v1/probe-configs");
      for (const config of configs) {
        await json(one, "PUT", `/api/v1/probe-configs/${config.id}`, {
          is_enabled: config.name in PROBES,
          collection_interval_seconds: INTERVAL_SECONDS,
        });
      }
      // A webhook for every alert, and a rule every monitored database breaks.
      await json(two, "POST", "/api/v1/notification-channels", {
        channel_type: "webhook",
        name: "test receiver",
        endpoint_url: webhookUrl,
        http_method: "POST",
        is_estate_default: true,
        enabled: true,
      });
      const rules = await json<{ id: number; name: string }[]>(two, "GET", "/api/v1/alert-rules");
      const rule = rules.find((candidate) => candidate.name === "high_max_connections");
      await json(two, "PUT", `/api/v1/alert-rules/${rule?.id}`, {
        default_threshold: 1,
        default_enabled: true,
      });

      connectionIds = [];
      for (let index = 1; index <= DATABASES; index++) {
        const created = await json<{ id: number }>(apis[index % 2] ?? one, "POST", "/api/v1/connections", {
          name: `monitored ${index}`,
          host: "127.0.0.1",
          hostaddr: `127.0.1.${index}`,
          port: monitored.port,
          database_name: `monitored_${index}`,
          username: "postgres",
          password: "unused-with-trust",
          is_monitored: true,
        });
        connectionIds.push(created.id);
      }

      // Every connection leased, the leases shared between the two collectors, each collected twice.
      await waitForCondition("two collections of every database", async () => {
        const collected = await samples("pg_connectivity");
        return connectionIds.every((id) => (collected.get(id)?.length ?? 0) >= 2) ? true : undefined;
      });
      const leased = await holders();
      expect([...leased.keys()].sort((a, b) => a - b)).toEqual(connectionIds);
      const perCollector = collectors.map(
        ({ instanceId }) => [...leased.values()].filter((holder) => holder === instanceId).length,
      );
      expect(perCollector).toEqual([DATABASES / 2, DATABASES / 2]);
      await expectCollectedOnceAtATime();
    });

    it("sends each alert notification exactly once", async () => {
      const alerts = await waitForCondition(
        "the rule's alert on every database, each delivered",
        async () => {
          const fired = await datastore<{ id: number }[]>`
          select a.id::int as id from alerts a join alert_rules r on r.id = a.rule_id
          where r.name = 'high_max_connections' and a.status = 'active'`;
          const delivered = new Set(
            deliveries.filter((d) => d.event === "alert_fire").map((d) => d.alert_id),
          );
          return fired.length === DATABASES && fired.every((alert) => delivered.has(alert.id))
            ? fired
            : undefined;
        },
      );
      expect(alerts).toHaveLength(DATABASES);
      // Both alerters keep evaluating and dispatching: nothing is sent again.
      await new Promise((done) => setTimeout(done, 2 * EVALUATION_SECONDS * 1000 + 1_000));
      const perNotification = new Map<string, number>();
      for (const delivery of deliveries) {
        const key = `${delivery.event} ${delivery.alert_id}`;
        perNotification.set(key, (perNotification.get(key) ?? 0) + 1);
      }
      const repeated = [...perNotification].filter(([, count]) => count > 1);
      expect(repeated).toEqual([]);
      const history = await datastore<{ alert_id: number; notification_type: string; n: number }[]>`
        select alert_id::int as alert_id, notification_type, count(*)::int as n from notification_history
        group by alert_id, notification_type having count(*) > 1`;
      expect(history).toEqual([]);
      const attempts = await datastore`
        select notification_id from notification_attempts group by notification_id having count(*) > 1`;
      expect(attempts).toEqual([]);
    });

    it("hands a killed collector's databases to the other within one lease period, without gaps", async () => {
      const [victim, survivor] = collectors as [(typeof collectors)[0], (typeof collectors)[0]];
      const victims = [...(await holders())]
        .filter(([, holder]) => holder === victim.instanceId)
        .map(([id]) => id);
      expect(victims.length).toBeGreaterThan(0);
      victim.process.child.kill("SIGKILL");
      const killedAt = Date.now();
      await victim.process.exited;

      await waitForCondition("the survivor to hold every lease", async () => {
        const leased = await holders();
        return connectionIds.every((id) => leased.get(id) === survivor.instanceId) ? true : undefined;
      });
      const taken = await datastore<{ connection_id: number; acquired_ms: number }[]>`
        select connection_id, (extract(epoch from acquired_at) * 1000)::float8 as acquired_ms
        from collector_leases where connection_id = any(${victims}::int[])`;
      for (const lease of taken) {
        expect(lease.acquired_ms - killedAt).toBeLessThanOrEqual(LEASE_SECONDS * 1000 + SLACK_MS);
      }

      // A collection of each taken-over database after the takeover, and no gap anywhere.
      const takenAt = Math.max(...taken.map((lease) => lease.acquired_ms));
      await waitForCondition("a collection of every taken-over database", async () => {
        const collected = await samples("pg_connectivity");
        return victims.every((id) => (collected.get(id) ?? []).some((at) => at > takenAt)) ? true : undefined;
      });
      await expectNoGap();
      await expectCollectedOnceAtATime();
    });

    it("gives a collector started later its share, handed over without a gap or a double collection", async () => {
      const late = startDbmon("collector", collectorEnv);
      processes.push(late);
      const instanceId = String((await late.logged("dbmon collector running")).instanceId);
      const moved = await waitForCondition("the leases shared out again", async () => {
        const leased = [...(await holders())];
        const taken = leased.filter(([, holder]) => holder === instanceId).map(([id]) => id);
        return leased.length === DATABASES && taken.length === DATABASES / 2 ? taken : undefined;
      });
      const movedAt = Date.now();
      await waitForCondition("a collection of every moved database by the new collector", async () => {
        const collected = await samples("pg_connectivity");
        return moved.every((id) => (collected.get(id) ?? []).some((at) => at > movedAt)) ? true : undefined;
      });
      await expectCollectedOnceAtATime();
      await expectNoGap();
    });
  },
);
