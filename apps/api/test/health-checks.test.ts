import { type RunningAlerter, silentAlerterLogger, startAlerter } from "@dbmon/alerter";
import { findProbe, type ProbeDefinition, type RunningCollector, startCollector } from "@dbmon/collector";
import { getConnectionHealth, listTimelineEvents } from "@dbmon/contract";
import {
  execStatements,
  machinePostgresBinariesAvailable,
  startPrimary,
  type TestServer,
} from "@dbmon/datastore/testing";
import { HEALTH_CHECK_PROBES } from "@dbmon/monitoring";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, type TestApp, type TestUser, typedClient } from "./support.js";

/*
 * Every health check on real conditions: a PostgreSQL 15 server of this file's own (so that nothing
 * other tests do shows in its server-wide checks), collected by the real collector, evaluated by the
 * real alerter's pass and read through the API: ok while the server is clean, then each check finds
 * the problem made for it, and the changes are on the timeline.
 */

/** The probes the checks read, each second here (their defaults are minutes). */
const PROBES = HEALTH_CHECK_PROBES;

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

type Health = Awaited<ReturnType<typeof health>>;
let t: TestApp;
let root: TestUser;
let id: number;

async function health() {
  return typedClient(t, root.token).call(getConnectionHealth, { params: { id } });
}

const statuses = (result: Health) =>
  Object.fromEntries(result.checks.map((check) => [check.name, check.status]));

describe.skipIf(!machinePostgresBinariesAvailable())(
  "health checks on real conditions",
  { timeout: 180_000 },
  () => {
    let server: TestServer;
    let collector: RunningCollector;
    let alerter: RunningAlerter;
    let idle: postgres.Sql | undefined;
    const startedAt = new Date();

    /** Evaluates (the alerter's pass) until `done` holds for the connection's health; 90 s at most. */
    async function evaluateUntil(what: string, done: (result: Health) => boolean): Promise<Health> {
      const deadline = Date.now() + 90_000;
      for (;;) {
        await alerter.evaluate();
        const result = await health();
        if (done(result)) {
          return result;
        }
        if (Date.now() > deadline) {
          throw new Error(`${what} not reached within 90 s: ${JSON.stringify(statuses(result))}`);
        }
        await pause(1000);
      }
    }

    beforeAll(async () => {
      [t, server] = await Promise.all([buildTestApp(), startPrimary("replica", { max_connections: 20 })]);
      root = await createUser(t, "root", { superuser: true });
      await execStatements(server.url, "create database shop");
      const row = await t.services.connections.create(
        {
          name: "health-under-test",
          host: "127.0.0.1",
          port: server.port,
          databaseName: "postgres",
          username: "postgres",
          password: "unused-with-trust-auth",
          sslMode: "disable",
        },
        "root",
      );
      id = row.id;
      for (const name of PROBES) {
        await t.datastore
          .sql`insert into probe_configs (name, collection_interval_seconds, retention_days, scope, scope_id)
        values (${name}, 1, 7, 'global', 0)`;
      }
      collector = await startCollector({
        datastore: t.datastore,
        logger: t.services.logger,
        secretKey: t.services.secretKey,
        leaseSeconds: 6,
        probes: PROBES.map((name) => findProbe(name) as ProbeDefinition),
      });
      alerter = startAlerter({
        datastore: t.datastore,
        logger: silentAlerterLogger,
        secretKey: t.services.secretKey,
        timers: false,
      });
    }, 120_000);

    afterAll(async () => {
      await idle?.end({ timeout: 1 });
      await collector?.stop();
      await alerter?.stop();
      await server?.remove();
      await t?.close();
    });

    it("is ok on every check while the server is clean", async () => {
      const result = await evaluateUntil("every check judged", (current) =>
        current.checks.every((check) => check.status !== "unknown"),
      );
      expect(statuses(result)).toEqual(Object.fromEntries(result.checks.map((check) => [check.name, "ok"])));
      expect(result.status).toBe("ok");
      expect(result.checks.find((check) => check.name === "sequences")).toMatchObject({
        value: 0,
        unit: "percent",
        threshold: { warning: 75, critical: 90, direction: "above" },
        findings: [],
      });
    });

    it("finds each problem made for it, and the changes are on the timeline", async () => {
      const shop = server.urlOf("shop");
      // A session idle inside its transaction from now on: past the 60 s warning by the end.
      idle = postgres(shop, { max: 1, onnotice: () => {} });
      const idleSince = Date.now();
      await idle.unsafe("begin; select 1");
      await execStatements(
        shop,
        `create table orders (id serial primary key, customer int, note text);
       insert into orders (customer, note) select i % 100, 'n' || i from generate_series(1, 5000) i;
       create index orders_customer on orders (customer);
       create index orders_customer_id on orders (customer, id);
       alter table orders add constraint orders_customer_positive check (customer > 0) not valid;
       create table coupons (code int);
       insert into coupons values (7), (7);
       create sequence tickets as smallint maxvalue 100;
       select setval('tickets', 90);
       create table events (id int, payload text) with (autovacuum_enabled = false);
       insert into events select i, 'p' from generate_series(1, 20000) i;
       delete from events;
       select pg_create_physical_replication_slot('stale_standby', true);
       checkpoint`,
      );
      // A unique index over duplicate values: CREATE INDEX CONCURRENTLY fails and leaves it invalid.
      await expect(
        execStatements(shop, "create unique index concurrently coupons_code on coupons (code)"),
      ).rejects.toThrow(/could not create unique index/);
      // WAL written after the slot was made: the slot holds it.
      await execStatements(shop, "insert into orders (customer) select 1 from generate_series(1, 1000)");
      await pause(Math.max(0, 61_000 - (Date.now() - idleSince)));
      const expected = {
        invalid_indexes: "warning",
        duplicate_indexes: "warning",
        invalid_constraints: "warning",
        sequences: "critical",
        dead_tuples: "critical",
        inactive_slots: "warning",
        idle_in_transaction: "warning",
      };
      // Not made to fail: judged (a collection fresh enough) and still ok, checked below.
      const untouched = ["xid_age", "multixact_age", "connections", "replication_lag", "long_transactions"];
      const result = await evaluateUntil(
        "every problem found",
        (current) =>
          Object.entries(expected).every(([name, status]) => statuses(current)[name] === status) &&
          untouched.every((name) => statuses(current)[name] !== "unknown"),
      );
      const check = (name: string) => result.checks.find((entry) => entry.name === name);
      expect(result.status).toBe("critical");
      expect(check("invalid_indexes")).toMatchObject({
        value: 1,
        findings: [
          {
            database: "shop",
            schema: "public",
            table: "coupons",
            name: "coupons_code",
            detail: "CREATE UNIQUE INDEX coupons_code ON public.coupons USING btree (code)",
          },
        ],
      });
      expect(check("duplicate_indexes")?.findings).toEqual([
        expect.objectContaining({
          database: "shop",
          name: "orders_customer",
          detail: "covered by orders_customer_id",
        }),
      ]);
      expect(check("invalid_constraints")?.findings).toEqual([
        expect.objectContaining({
          table: "orders",
          name: "orders_customer_positive",
          detail: "CHECK ((customer > 0)) NOT VALID",
        }),
      ]);
      expect(check("sequences")).toMatchObject({
        value: 90,
        findings: [expect.objectContaining({ name: "tickets", used_percent: 90 })],
      });
      expect(check("dead_tuples")).toMatchObject({
        value: 100,
        findings: [
          expect.objectContaining({ database: "shop", table: "events", dead_tuples: 20000, live_tuples: 0 }),
        ],
      });
      expect(check("inactive_slots")?.value).toBeGreaterThan(0);
      expect(check("inactive_slots")?.findings).toEqual([
        expect.objectContaining({ slot: "stale_standby", type: "physical" }),
      ]);
      expect(check("idle_in_transaction")?.value).toBeGreaterThanOrEqual(60);
      expect(check("idle_in_transaction")?.findings).toEqual([
        expect.objectContaining({ database: "shop", state: "idle in transaction", query: "begin; select 1" }),
      ]);
      for (const name of untouched) {
        expect(statuses(result)[name], name).toBe("ok");
      }

      const timeline = await typedClient(t, root.token).call(listTimelineEvents, {
        query: {
          start_time: startedAt.toISOString(),
          end_time: new Date(Date.now() + 60_000).toISOString(),
          event_types: "health_check_changed",
        },
      });
      const changes = timeline.events.map((event) => [
        event.details?.check,
        event.details?.status,
        event.severity,
      ]);
      expect(changes.sort()).toEqual(
        Object.entries(expected)
          .map(([name, status]) => [name, status, status])
          .sort(),
      );
      expect(timeline.events.find((event) => event.details?.check === "sequences")).toMatchObject({
        connection_id: id,
        server_name: "health-under-test",
        title: "Health Check Degraded: Sequences near exhaustion",
        summary: "Sequences near exhaustion went from ok to critical",
        details: { previous_status: "ok", value: 90, unit: "percent" },
      });
    });

    it("turns ok again once the problem is gone, and says so on the timeline", async () => {
      await idle?.unsafe("rollback");
      await execStatements(
        server.urlOf("shop"),
        "drop index coupons_code; select pg_drop_replication_slot('stale_standby')",
      );
      const result = await evaluateUntil("the fixed checks ok", (current) =>
        ["invalid_indexes", "idle_in_transaction", "inactive_slots"].every(
          (name) => statuses(current)[name] === "ok",
        ),
      );
      expect(statuses(result).sequences).toBe("critical");
      const timeline = await typedClient(t, root.token).call(listTimelineEvents, {
        query: {
          start_time: startedAt.toISOString(),
          end_time: new Date(Date.now() + 60_000).toISOString(),
          event_types: "health_check_changed",
        },
      });
      expect(timeline.events.find((event) => event.details?.check === "invalid_indexes")).toMatchObject({
        severity: "info",
        title: "Health Check Recovered: Invalid indexes",
        details: { previous_status: "warning", status: "ok" },
      });
    });
  },
);
