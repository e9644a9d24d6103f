import { findProbe, type RunningCollector, startCollector } from "@dbmon/collector";
import {
  getClusterActivityLoad,
  getConnectionActivityLoad,
  getConnectionActivitySessions,
  getConnectionActivityTop,
} from "@dbmon/contract";
import { databaseUrl, waitFor } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

const CLUSTER = 9100;

/**
 * Active session history end to end: the real collector samples the test's own server (the
 * machine's PostgreSQL 15 with TEST_DATABASE_URL, the embedded 18 without) once a second while
 * sessions of this test contend for a row, and the API answers what it stored. Two databases of the
 * server are registered: `work` (the viewer's), where the contention runs, and `other` (root's,
 * hidden from the viewer), where a session sleeps; both are in one cluster.
 */
describe("activity through the API, sampled by the real collector", () => {
  let t: TestApp;
  let root: TestUser;
  let viewer: TestUser;
  let workId: number;
  let otherId: number;
  const databases: string[] = [];
  const sessions: postgres.Sql[] = [];
  let collector: RunningCollector | undefined;
  let startedAt: Date;
  let contendedAt: Date;
  let pids: { holder: number; waiter: number; second: number; burner: number };

  const session = (database: string) => {
    const sql = postgres(databaseUrl(t.database.serverUrl, database), { max: 1, onnotice: () => {} });
    sessions.push(sql);
    return sql;
  };
  const pidOf = async (sql: postgres.Sql) =>
    Number((await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]?.pid);

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    viewer = await createUser(t, "viewer");
    const admin = postgres(t.database.serverUrl, { max: 1, onnotice: () => {} });
    sessions.push(admin);
    for (const role of ["work", "other"]) {
      const name = `${t.database.name}_${role}`;
      await admin.unsafe(`create database "${name}"`);
      databases.push(name);
    }
    const [work, other] = databases as [string, string];
    await session(work)`create table accounts (id int primary key, balance int not null)`;
    await session(work)`insert into accounts values (1, 100)`;
    const server = new URL(t.database.url);
    const register = async (name: string, database: string, owner: string) =>
      (
        await t.services.connections.create(
          {
            name,
            host: server.hostname,
            port: Number(server.port || 5432),
            databaseName: database,
            username: decodeURIComponent(server.username),
            password: decodeURIComponent(server.password) || "unused-with-trust-auth",
            sslMode: "disable",
          },
          owner,
        )
      ).id;
    // The lower id also collects the server's unregistered databases (the datastore, other tests):
    // root's connection takes them, so the viewer's holds the work database's sessions only.
    otherId = await register("other", other, "root");
    workId = await register("work", work, "viewer");
    await t.datastore
      .sql`insert into clusters (id, name) overriding system value values (${CLUSTER}, 'shop')`;
    await t.datastore.sql`update connections set cluster_id = ${CLUSTER}, membership_source = 'manual'
      where id in (${workId}, ${otherId})`;
  });

  afterAll(async () => {
    await collector?.stop();
    await Promise.all(sessions.map((sql) => sql.end({ timeout: 1 }).catch(() => {})));
    const admin = postgres(t.database.serverUrl, { max: 1, onnotice: () => {} });
    for (const name of databases) {
      await admin.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {});
    }
    await admin.end();
    await t?.close();
  });

  it("samples a lock contention: Lock waits with their blocker, through every answer", async () => {
    startedAt = new Date();
    collector = await startCollector({
      datastore: t.datastore,
      logger: t.services.logger,
      secretKey: t.services.secretKey,
      leaseSeconds: 6,
      // The host's processors, for the CPU line; sampling itself always runs.
      probes: [findProbe("pg_sys_cpu_info") ?? expect.fail("pg_sys_cpu_info probe")],
      topologySeconds: 0,
      rollupSeconds: 0,
    });
    await waitFor(
      "both connections collected",
      async () => (collector?.connectionIds().length === 2 ? true : undefined),
      20_000,
    );
    // A tick or two first: the contention below is then sampled at the rhythm, not at start.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const [work, other] = databases as [string, string];
    const holder = session(work);
    const waiter = session(work);
    const second = session(work);
    const burner = session(work);
    const sleeper = session(other);
    pids = {
      holder: await pidOf(holder),
      waiter: await pidOf(waiter),
      second: await pidOf(second),
      burner: await pidOf(burner),
    };
    // Query ids without pg_stat_statements loaded, so that load can be grouped by query.
    for (const sql of [holder, waiter, second, burner]) {
      await sql`set compute_query_id = on`;
    }
    await holder`begin`;
    await holder`update accounts set balance = balance - 10 where id = 1`;
    const blocked = [
      waiter`update accounts set balance = balance + 10 where id = 1`.catch((error: unknown) => error),
    ];
    await new Promise((resolve) => setTimeout(resolve, 300));
    blocked.push(second`update accounts set balance = 0 where id = 1`.catch((error: unknown) => error));
    await burner`set statement_timeout = '8s'`;
    const burning = burner`select count(*) from (select generate_series(1, 2000000000) as i) s`.catch(
      (error: unknown) => error,
    );
    const sleeping = sleeper`select pg_sleep(6)`.catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    contendedAt = new Date();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await holder`rollback`;
    await Promise.all([...blocked, sleeping]);
    await session(work)`select pg_cancel_backend(${pids.burner})`;
    await burning;
    // Stopping writes the open minute's counts.
    await collector.stop();
    collector = undefined;

    const window = {
      start_time: startedAt.toISOString(),
      end_time: new Date(Date.now() + 60_000).toISOString(),
    };
    const api = typedClient(t, viewer.token);

    const moment = await api.call(getConnectionActivitySessions, {
      params: { id: workId },
      query: { at: contendedAt.toISOString() },
    });
    const [server] = moment.servers;
    expect(server?.sampled_at).not.toBeNull();
    expect(Math.abs(Date.parse(server?.sampled_at ?? "") - contendedAt.getTime())).toBeLessThan(2000);
    const tree = server?.lock_tree.map((entry) => ({
      depth: entry.depth,
      pid: entry.pid,
      wait: `${entry.wait_event_type}:${entry.wait_event}`,
      state: entry.state,
      blocking_pids: entry.blocking_pids,
    }));
    expect(tree?.[0]).toEqual({
      depth: 0,
      pid: pids.holder,
      wait: "Client:ClientRead",
      state: "idle in transaction",
      blocking_pids: [],
    });
    expect(tree).toContainEqual({
      depth: 1,
      pid: pids.waiter,
      wait: "Lock:transactionid",
      state: "active",
      blocking_pids: [pids.holder],
    });
    expect(tree?.find((entry) => entry.pid === pids.second)?.wait).toMatch(/^Lock:/);
    expect(server?.sessions.find((s) => s.pid === pids.burner)).toMatchObject({
      state: "active",
      wait_event_type: "CPU",
      wait_event: "CPU",
    });

    const load = await api.call(getConnectionActivityLoad, {
      params: { id: workId },
      query: { ...window, bucket_seconds: 60 },
    });
    const byType = new Map(load.series.map((series) => [series.value, series.average_load]));
    expect(byType.get("Lock")).toBeGreaterThan(0);
    expect(byType.get("CPU")).toBeGreaterThan(0);
    // The connection answers for its whole server, as if it monitored it alone: the other
    // database's sleeping session, stored under root's connection (which collects that database), too.
    expect(byType.get("Timeout")).toBeGreaterThan(0);
    expect(load.vcpus).toBeGreaterThan(0);

    const top = await api.call(getConnectionActivityTop, {
      params: { id: workId },
      query: { ...window, dimension: "wait_event" },
    });
    expect(top.items.map((item) => item.label)).toContain("Lock: transactionid");

    const queries = await api.call(getConnectionActivityTop, { params: { id: workId }, query: window });
    const update = queries.items.find(
      (item) => item.query === "update accounts set balance = balance + 10 where id = 1",
    );
    expect(update?.waits?.[0]?.wait_event_type).toBe("Lock");

    // The cluster: the viewer sees one of its connections, which answers for the server; root sees
    // both, and the server counts once.
    const mine = await api.call(getClusterActivityLoad, { params: { id: String(CLUSTER) }, query: window });
    expect(mine.scope.servers.map((one) => one.connection_id)).toEqual([workId]);
    expect(mine.series.map((series) => series.value)).toContain("Timeout");
    const all = await typedClient(t, root.token).call(getClusterActivityLoad, {
      params: { id: String(CLUSTER) },
      query: window,
    });
    expect(all.scope.servers).toHaveLength(2);
    expect(all.total).toEqual(mine.total);
    const hidden = await requestJson(t.app, `/api/v1/connections/${otherId}/activity/load`, {
      token: viewer.token,
    });
    expect(hidden.status).toBe(403);
  }, 90_000);
});
