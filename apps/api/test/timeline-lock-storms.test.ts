import { type RunningCollector, startCollector } from "@dbmon/collector";
import { listTimelineEvents } from "@dbmon/contract";
import { databaseUrl, waitFor } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InputOf } from "./contract-types.js";
import { addConnection } from "./monitoring-support.js";
import { buildTestApp, createUser, type TestApp, type TestUser, typedClient } from "./support.js";

type Query = NonNullable<InputOf<typeof listTimelineEvents>["query"]>;

interface Sample {
  pid: number;
  state: string;
  blockedBy?: number[];
  query?: string;
}

describe("timeline: lock storms from the active session history", () => {
  let t: TestApp;
  let root: TestUser;
  let viewer: TestUser;
  let mine: number;
  let theirs: number;
  // Milliseconds of their own: the datastore writes a time without them when they are 0.
  const startedAt = Math.floor(Date.now() / 1000) * 1000 + 123;
  const minutesAgo = (minutes: number) => new Date(startedAt - minutes * 60_000);
  /** A time as the timeline writes it (RFC 3339 in the datastore session's zone, UTC). */
  const wire = (at: Date) => at.toISOString().replace("Z", "+00:00");
  const window: Query = {
    start_time: minutesAgo(60).toISOString(),
    end_time: new Date(startedAt + 60_000).toISOString(),
    event_types: "lock_storm",
  };

  /** Stores one sampled moment of a connection, as the activity sampler does. */
  async function moment(connectionId: number, at: Date, sessions: Sample[]): Promise<void> {
    for (const s of sessions) {
      const blocked = (s.blockedBy ?? []).length > 0;
      await t.datastore.sql`
        insert into metrics.activity_samples (connection_id, sampled_at, pid, database_name, user_name, application_name,
          client_addr, backend_type, state, wait_event_type, wait_event, query, xact_start, query_start, blocking_pids)
        values (${connectionId}, ${at.toISOString()}, ${s.pid}, 'app', ${`user${s.pid}`}, 'billing', '10.0.0.7',
          'client backend', ${s.state}, ${blocked ? "Lock" : s.state === "active" ? null : "Client"},
          ${blocked ? "transactionid" : s.state === "active" ? null : "ClientRead"}, ${s.query ?? "select 1"},
          ${minutesAgo(20).toISOString()}, ${at.toISOString()}, ${s.blockedBy ?? []}::int[])`;
    }
  }

  const waiting = (pids: number[], blocker: number): Sample[] =>
    pids.map((pid) => ({
      pid,
      state: "active",
      blockedBy: [blocker],
      query: "update accounts set n = n + 1",
    }));

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    viewer = await createUser(t, "viewer");
    mine = await addConnection(t, "mine", { owner: "viewer", clusterId: 9101 });
    theirs = await addConnection(t, "theirs", { owner: "root", clusterId: 9102 });
    const storm = minutesAgo(10);
    // Six sessions wait for pid 100 (idle in its transaction), a seventh for one of them: 7 blocked.
    await moment(mine, storm, [
      { pid: 100, state: "idle in transaction", query: "update accounts set n = 0 where id = 1" },
      ...waiting([101, 102, 103, 104, 105, 106], 100),
      ...waiting([107], 101),
    ]);
    // The same minute, a second later: fewer blocked; the storm's moment is the peak.
    await moment(mine, new Date(storm.getTime() + 1000), [
      { pid: 100, state: "idle in transaction" },
      ...waiting([101, 102, 103, 104, 105], 100),
    ]);
    // Five minutes later, three blocked: under the default threshold (5).
    await moment(mine, minutesAgo(5), [{ pid: 200, state: "active" }, ...waiting([201, 202, 203], 200)]);
    // What the per-minute aggregates keep: 40 minutes ago (raw samples gone) 7 sessions waited on
    // locks on average, 35 minutes ago 2; the storm's minute has its raw samples, which take precedence.
    const lockMinute = async (at: Date, ticks: number, waiting: number) => {
      const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString();
      await t.datastore
        .sql`insert into metrics.activity_ticks (connection_id, minute, ticks) values (${mine}, ${minute}, ${ticks})`;
      await t.datastore.sql`
        insert into metrics.activity_minutes (connection_id, minute, database_name, state, wait_event_type, wait_event, samples)
        values (${mine}, ${minute}, 'app', 'active', 'Lock', 'transactionid', ${waiting})`;
    };
    await lockMinute(minutesAgo(40), 60, 420);
    await lockMinute(minutesAgo(35), 60, 120);
    await lockMinute(storm, 60, 540);
    await moment(theirs, storm, [
      { pid: 300, state: "idle in transaction" },
      ...waiting([301, 302, 303, 304, 305, 306, 307, 308], 300),
    ]);
  });
  afterAll(() => t?.close());

  const list = (token: string, query: Query = {}) =>
    typedClient(t, token).call(listTimelineEvents, { query: { ...window, ...query } });

  it("one event per minute at its peak, naming the head of the chain and what it was doing", async () => {
    const page = await list(root.token, { connection_id: mine });
    expect(page.total_count).toBe(2);
    const storm = minutesAgo(10);
    const minute = Math.floor(storm.getTime() / 60_000) * 60;
    expect(page.events[0]).toEqual({
      id: `lock-storm-${mine}-${minute}`,
      event_type: "lock_storm",
      connection_id: mine,
      server_name: "mine",
      occurred_at: wire(storm),
      severity: "warning",
      title: "Lock Storm",
      summary: "7 sessions blocked by pid 100 (user100)",
      details: {
        source: "samples",
        blocked_sessions: 7,
        threshold: 5,
        sampled_at: wire(storm),
        blocker: {
          pid: 100,
          blocked_sessions: 6,
          database_name: "app",
          user_name: "user100",
          application_name: "billing",
          client_addr: "10.0.0.7",
          state: "idle in transaction",
          wait_event_type: "Client",
          wait_event: "ClientRead",
          query: "update accounts set n = 0 where id = 1",
          xact_start: wire(minutesAgo(20)),
        },
      },
    });
  });

  it("after the raw samples are gone, from the minutes' average of sessions waiting on locks", async () => {
    const page = await list(root.token, { connection_id: mine });
    const minute = new Date(Math.floor(minutesAgo(40).getTime() / 60_000) * 60_000);
    expect(page.events[1]).toEqual({
      id: `lock-storm-${mine}-${minute.getTime() / 1000}`,
      event_type: "lock_storm",
      connection_id: mine,
      server_name: "mine",
      occurred_at: minute.toISOString().replace(".000Z", "+00:00"),
      severity: "warning",
      title: "Lock Storm",
      summary: "7.0 sessions blocked on average over the minute",
      details: { source: "minutes", blocked_sessions: 7, threshold: 5, sampled_at: null, blocker: null },
    });
  });

  it("respects connection visibility", async () => {
    const seen = await list(viewer.token);
    expect(seen.events.map((event) => event.connection_id)).toEqual([mine, mine]);
    expect((await list(viewer.token, { connection_id: theirs })).events).toEqual([]);
    const all = await list(root.token);
    expect(all.events.map((event) => [event.connection_id, event.details?.blocked_sessions]).sort()).toEqual(
      [
        [mine, 7],
        [mine, 7],
        [theirs, 8],
      ].sort(),
    );
  });

  it("is left out when other event types are asked for, and listed among all of them", async () => {
    expect((await list(root.token, { event_types: "restart" })).events).toEqual([]);
    const { event_types: _types, ...everything } = window;
    const page = await typedClient(t, root.token).call(listTimelineEvents, { query: everything });
    expect(page.events.filter((event) => event.event_type === "lock_storm")).toHaveLength(3);
  });
});

/**
 * The same from real samples: the real collector samples the test's own server (the machine's
 * PostgreSQL 15 with TEST_DATABASE_URL, the embedded 18 without) once a second while a session idle
 * in its transaction holds a row five others want to update.
 */
describe("timeline: a lock storm sampled by the real collector", () => {
  let t: TestApp;
  let root: TestUser;
  let stranger: TestUser;
  let connectionId: number;
  let database: string;
  const sessions: postgres.Sql[] = [];
  let collector: RunningCollector | undefined;

  const session = () => {
    const sql = postgres(databaseUrl(t.database.serverUrl, database), { max: 1, onnotice: () => {} });
    sessions.push(sql);
    return sql;
  };

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    stranger = await createUser(t, "stranger");
    database = `${t.database.name}_storm`;
    const admin = postgres(t.database.serverUrl, { max: 1, onnotice: () => {} });
    sessions.push(admin);
    await admin.unsafe(`create database "${database}"`);
    await session()`create table accounts (id int primary key, balance int not null)`;
    await session()`insert into accounts values (1, 100)`;
    const server = new URL(t.database.url);
    connectionId = (
      await t.services.connections.create(
        {
          name: "storm",
          host: server.hostname,
          port: Number(server.port || 5432),
          databaseName: database,
          username: decodeURIComponent(server.username),
          password: decodeURIComponent(server.password) || "unused-with-trust-auth",
          sslMode: "disable",
        },
        "root",
      )
    ).id;
  });

  afterAll(async () => {
    await collector?.stop();
    await Promise.all(sessions.map((sql) => sql.end({ timeout: 1 }).catch(() => {})));
    const admin = postgres(t.database.serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${database}" with (force)`).catch(() => {});
    await admin.end();
    await t?.close();
  });

  it("names the session idle in its transaction that blocked five updates", async () => {
    const startedAt = new Date();
    collector = await startCollector({
      datastore: t.datastore,
      logger: t.services.logger,
      secretKey: t.services.secretKey,
      // Sampling always runs; no other probe is needed.
      probes: [],
      topologySeconds: 0,
      rollupSeconds: 0,
    });
    await waitFor(
      "the connection collected",
      async () => (collector?.connectionIds().length === 1 ? true : undefined),
      20_000,
    );
    const holder = session();
    const [{ pid: holderPid } = { pid: 0 }] = await holder<{ pid: number }[]>`select pg_backend_pid() as pid`;
    await holder`begin`;
    await holder`update accounts set balance = balance - 10 where id = 1`;
    const waiters = Array.from({ length: 5 }, () => session());
    const blocked = waiters.map((waiter) =>
      waiter`update accounts set balance = balance + 1 where id = 1`.catch((error: unknown) => error),
    );
    const stormOf = async (token: string) =>
      (
        await typedClient(t, token).call(listTimelineEvents, {
          query: {
            start_time: startedAt.toISOString(),
            end_time: new Date(Date.now() + 60_000).toISOString(),
            event_types: "lock_storm",
          },
        })
      ).events;
    try {
      const [event] = await waitFor(
        "a lock storm on the timeline",
        async () => {
          const events = await stormOf(root.token);
          return events.length > 0 ? events : undefined;
        },
        20_000,
      );
      expect(event).toMatchObject({
        event_type: "lock_storm",
        connection_id: connectionId,
        server_name: "storm",
        severity: "warning",
        title: "Lock Storm",
      });
      expect(event?.summary).toMatch(new RegExp(`^5 sessions blocked by pid ${holderPid}`));
      expect(event?.details).toMatchObject({
        blocked_sessions: 5,
        threshold: 5,
        blocker: {
          pid: holderPid,
          state: "idle in transaction",
          database_name: database,
          query: "update accounts set balance = balance - 10 where id = 1",
        },
      });
      expect(await stormOf(stranger.token)).toEqual([]);
    } finally {
      await holder`rollback`;
      await Promise.all(blocked);
    }
  });
});
