import {
  ACTIVITY_DIMENSIONS,
  getClusterActivityLoad,
  getClusterActivitySessions,
  getClusterActivityTop,
  getConnectionActivityLoad,
  getConnectionActivitySessions,
  getConnectionActivityTop,
  getGroupActivityLoad,
  getGroupActivitySessions,
  getGroupActivityTop,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addConnection, prepareMetricsOf } from "./monitoring-support.js";
import {
  buildTestApp,
  callBridgeTool,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

/**
 * Seeded aggregates and samples, so that every number of the answers can be worked out by hand.
 * Connection A (the viewer's, in cluster 9001, a host of 4 vCPUs), from 10:00:
 *   10:00–10:04: 60 ticks a minute; 60 samples on CPU (query 11), 120 waiting on Lock/transactionid (query 22)
 *   10:05–10:09: 60 ticks a minute; 30 samples on CPU (query 11), 30 on IO/DataFileRead (query 11)
 *   10:10: 30 ticks (sampling stopped half-way); 30 samples on CPU (query 11)
 *   10:11 onwards: nothing sampled.
 * Connection H (root's, hidden from the viewer, also in cluster 9001, a host of 64 vCPUs): 10 sessions on
 * CPU 10:00–10:09.
 * Connection B (the viewer's, in no cluster, another server on A's host): 10:00, 60 ticks, 30 samples of
 * user "batch" on CPU.
 */
const day = "2026-11-20";
/** A time of the seeded day, as the text postgres.js sends (Drizzle turns off its Date conversion). */
const at = (time: string) => `${day}T${time}Z`;
const CLUSTER = 9001;

describe("activity: database load, top values and sessions", () => {
  let t: TestApp;
  let root: TestUser;
  let viewer: TestUser;
  let a: number;
  let b: number;
  let hidden: number;
  let defaultGroup: number;

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    viewer = await createUser(t, "viewer");
    a = await addConnection(t, "alpha", { owner: "viewer", clusterId: CLUSTER });
    hidden = await addConnection(t, "hidden", { owner: "root", clusterId: CLUSTER });
    b = await addConnection(t, "bravo", { owner: "viewer" });
    const sql = t.datastore.sql;
    const [group] = await sql<{ id: number }[]>`select id from cluster_groups where is_default`;
    defaultGroup = group?.id as number;
    const minute = (m: number) => at(`10:${String(m).padStart(2, "0")}:00`);
    const ticks: [number, string, number][] = [];
    const minutes: [number, string, string, string, string, string, number, number][] = [];
    for (let m = 0; m < 10; m++) {
      ticks.push([a, minute(m), 60], [hidden, minute(m), 60]);
      if (m < 5) {
        minutes.push([a, minute(m), "app", "active", "", "", 11, 60]);
        minutes.push([a, minute(m), "app", "active", "Lock", "transactionid", 22, 120]);
      } else {
        minutes.push([a, minute(m), "app", "active", "", "", 11, 30]);
        minutes.push([a, minute(m), "app", "active", "IO", "DataFileRead", 11, 30]);
      }
      minutes.push([hidden, minute(m), "secret", "active", "", "", 99, 600]);
    }
    ticks.push([a, minute(10), 30], [b, minute(0), 60]);
    minutes.push([a, minute(10), "app", "active", "", "", 11, 30]);
    minutes.push([b, minute(0), "batch", "active", "", "", 0, 30]);
    for (const [connection, time, user, state, type, event, query, samples] of minutes) {
      await sql`insert into metrics.activity_minutes (connection_id, minute, database_name, user_name,
          application_name, backend_type, state, wait_event_type, wait_event, query_id, samples)
        values (${connection}, ${time}, 'shop', ${user}, 'psql', 'client backend', ${state}, ${type}, ${event},
          ${query}, ${samples})`;
    }
    for (const [connection, time, count] of ticks) {
      await sql`insert into metrics.activity_ticks (connection_id, minute, ticks) values (${connection}, ${time}, ${count})`;
    }
    // Their hourly sums per dimension, as the collector adds them in the transaction that writes the minutes.
    await sql`insert into metrics.activity_hours (connection_id, hour, dimension, value, wait_event_type, samples)
      select m.connection_id, date_bin('1 hour', m.minute, timestamptz 'epoch'), d.dimension, d.value,
        m.wait_event_type, sum(m.samples)
      from metrics.activity_minutes m
      cross join lateral (values ('', ''), ('database_name', m.database_name), ('user_name', m.user_name),
        ('application_name', m.application_name), ('client_addr', m.client_addr), ('wait_event', m.wait_event),
        ('query_id', m.query_id::text)) d(dimension, value)
      group by 1, 2, 3, 4, 5`;
    await sql`insert into metrics.activity_hour_ticks (connection_id, hour, ticks)
      select connection_id, date_bin('1 hour', minute, timestamptz 'epoch'), sum(ticks)
      from metrics.activity_ticks group by 1, 2`;
    // A's host: 4 logical processors; query 22's text from pg_stat_statements.
    await prepareMetricsOf(t, ["pg_sys_cpu_info", "pg_stat_statements"], new Date(at("10:00:00")));
    // B is another server (another port) on A's host: the host's processors count once; the hidden
    // connection another host, of 64.
    await sql`update connections set host = (select host from connections where id = ${a}), port = 5433
      where id = ${b}`;
    await sql`update connections set host = '10.0.0.9' where id = ${hidden}`;
    for (const [connection, vcpus] of [
      [a, 4],
      [b, 4],
      [hidden, 64],
    ] as const) {
      await sql`insert into metrics.pg_sys_cpu_info (connection_id, collected_at, logical_processor)
        values (${connection}, ${at("09:00:00")}, ${vcpus})`;
      await sql`insert into probe_runs (connection_id, probe_name, last_run_at, snapshot_collected_at)
        values (${connection}, 'pg_sys_cpu_info', ${at("10:00:00")}, ${at("09:00:00")})`;
    }
    await sql`insert into metrics.pg_stat_statements (connection_id, database_name, collected_at, queryid, query, calls)
      values (${a}, 'shop', ${at("10:05:00")}, 22, 'update accounts set balance = balance + $1 where id = $2', 10)`;
    // Raw samples: two ticks of A around 10:10:01 and one of the hidden connection.
    const sample = (
      connection: number,
      time: string,
      pid: number,
      state: string,
      wait: [string, string] | null,
      query: string,
      blocking: number[],
    ) => sql`insert into metrics.activity_samples (connection_id, sampled_at, pid, database_name, user_name,
        application_name, client_addr, backend_type, state, wait_event_type, wait_event, query_id, query,
        xact_start, query_start, state_change, blocking_pids)
      values (${connection}, ${at(time)}, ${pid}, 'shop', 'app', 'psql', '10.0.0.7', 'client backend', ${state},
        ${wait?.[0] ?? null}, ${wait?.[1] ?? null}, ${pid === 103 ? 11 : 22}, ${query}, ${at("10:09:00")},
        ${at(`10:09:${String(pid - 90).padStart(2, "0")}`)}, ${at("10:09:30")}, ${blocking})`;
    await sample(
      a,
      "10:10:00",
      100,
      "idle in transaction",
      ["Client", "ClientRead"],
      "update accounts set balance = 0 where id = 1",
      [],
    );
    await sample(
      a,
      "10:10:01",
      100,
      "idle in transaction",
      ["Client", "ClientRead"],
      "update accounts set balance = 0 where id = 1",
      [],
    );
    await sample(
      a,
      "10:10:01",
      101,
      "active",
      ["Lock", "transactionid"],
      "update accounts set balance = 1 where id = 1",
      [100],
    );
    await sample(
      a,
      "10:10:01",
      102,
      "active",
      ["Lock", "tuple"],
      "update accounts set balance = 2 where id = 1",
      [101],
    );
    await sample(a, "10:10:01", 103, "active", null, "select count(*) from orders", []);
    await sample(hidden, "10:10:01", 100, "active", null, "select secret", []);
  });
  afterAll(() => t?.close());

  const window = { start_time: `${day}T10:00:00Z`, end_time: `${day}T10:15:00Z` };
  const alphaScope = () => ({
    kind: "connection" as const,
    id: a,
    name: "alpha",
    servers: [{ connection_id: a, name: "alpha", vcpus: 4 }],
  });

  describe("load", () => {
    it("is samples over ticks per bucket, grouped by wait event type with CPU named, vCPUs beside it", async () => {
      const load = await typedClient(t, viewer.token).call(getConnectionActivityLoad, {
        params: { id: a },
        query: { ...window, bucket_seconds: 300 },
      });
      expect(load).toEqual({
        scope: alphaScope(),
        start_time: `${day}T10:00:00.000Z`,
        end_time: `${day}T10:15:00.000Z`,
        bucket_seconds: 300,
        dimension: "wait_event_type",
        vcpus: 4,
        // 1,230 samples over 630 ticks.
        average_load: 1.952,
        times: [`${day}T10:00:00.000Z`, `${day}T10:05:00.000Z`, `${day}T10:10:00.000Z`],
        // The last bucket: 30 samples in the 30 ticks of its one sampled minute, not diluted.
        total: [3, 1, 1],
        series: [
          { value: "CPU", label: "CPU", average_load: 0.762, load: [1, 0.5, 1] },
          { value: "Lock", label: "Lock", average_load: 0.952, load: [2, 0, 0] },
          { value: "IO", label: "IO", average_load: 0.238, load: [0, 0.5, 0] },
        ].sort((x, y) => y.average_load - x.average_load),
        other: null,
      });
    });

    it("leaves buckets never sampled null, and sums the values beyond `series` in other", async () => {
      const load = await typedClient(t, viewer.token).call(getConnectionActivityLoad, {
        params: { id: a },
        query: {
          start_time: `${day}T10:09:00Z`,
          end_time: `${day}T10:12:00Z`,
          bucket_seconds: 60,
          dimension: "wait_event",
          series: 1,
        },
      });
      expect(load.times).toEqual([`${day}T10:09:00.000Z`, `${day}T10:10:00.000Z`, `${day}T10:11:00.000Z`]);
      expect(load.total).toEqual([1, 1, null]);
      // Over 10:09–10:11: CPU 60 samples, IO 30, in 90 ticks.
      expect(load.series).toEqual([
        { value: "CPU", label: "CPU", wait_event_type: "CPU", average_load: 0.667, load: [0.5, 1, null] },
      ]);
      expect(load.other).toEqual({ average_load: 0.333, load: [0.5, 0, null] });
    });

    it("groups by query with the text from pg_stat_statements", async () => {
      const load = await typedClient(t, viewer.token).call(getConnectionActivityLoad, {
        params: { id: a },
        query: { ...window, bucket_seconds: 900, dimension: "query" },
      });
      expect(load.series).toEqual([
        // No pg_stat_statements text for query 11: the sampled sessions' text.
        {
          value: "11",
          label: "select count(*) from orders",
          query: "select count(*) from orders",
          average_load: 1,
          load: [1],
        },
        {
          value: "22",
          label: "update accounts set balance = balance + $1 where id = $2",
          query: "update accounts set balance = balance + $1 where id = $2",
          average_load: 0.952,
          load: [0.952],
        },
      ]);
    });

    it("answers buckets of whole hours from the hourly sums with the load the minutes give", async () => {
      const hour = { start_time: `${day}T10:00:00Z`, end_time: `${day}T11:00:00Z` };
      for (const dimension of ACTIVITY_DIMENSIONS) {
        // Buckets of whole hours read activity_hours, of minutes activity_minutes: over the same
        // window each value's average is the same, and the hour's one bucket is that average.
        const [byHour, byMinute] = await Promise.all(
          [3600, 60].map((bucket_seconds) =>
            typedClient(t, root.token).call(getClusterActivityLoad, {
              params: { id: String(CLUSTER) },
              query: { ...hour, bucket_seconds, dimension },
            }),
          ),
        );
        expect(byHour?.average_load).toBe(11.952);
        expect(byHour?.average_load).toBe(byMinute?.average_load);
        expect(byHour?.series.map((one) => [one.value, one.label, one.average_load, one.load])).toEqual(
          byMinute?.series.map((one) => [one.value, one.label, one.average_load, [one.average_load]]),
        );
      }
      // Buckets narrower than an hour over a window of whole hours come from the minutes.
      const [quarters, firstQuarter] = await Promise.all(
        [hour, { start_time: `${day}T10:00:00Z`, end_time: `${day}T10:15:00Z` }].map((query) =>
          typedClient(t, root.token).call(getClusterActivityLoad, {
            params: { id: String(CLUSTER) },
            query: { ...query, bucket_seconds: 300 },
          }),
        ),
      );
      expect(firstQuarter?.total).toEqual([13, 11, 1]);
      expect(quarters?.total).toEqual([13, 11, 1, ...Array(9).fill(null)]);
      // Top values over a window of whole hours read the hourly sums too.
      const [top, byQuery] = await Promise.all([
        typedClient(t, viewer.token).call(getConnectionActivityTop, { params: { id: a }, query: hour }),
        typedClient(t, viewer.token).call(getConnectionActivityLoad, {
          params: { id: a },
          query: { ...hour, bucket_seconds: 300, dimension: "query" },
        }),
      ]);
      expect(top.items.map((item) => [item.value, item.load])).toEqual(
        byQuery.series.map((one) => [one.value, one.average_load]),
      );
      expect(top.items.length).toBeGreaterThan(1);
    });

    it("picks a default bucket width giving at most 120 buckets", async () => {
      const day7 = await typedClient(t, viewer.token).call(getConnectionActivityLoad, {
        params: { id: a },
        query: { start_time: `${day}T00:00:00Z`, end_time: "2026-11-27T00:00:00Z" },
      });
      expect(day7.bucket_seconds).toBe(7200);
      expect(day7.times).toHaveLength(84);
      const defaults = await typedClient(t, viewer.token).call(getConnectionActivityLoad, {
        params: { id: a },
      });
      expect(defaults.bucket_seconds).toBe(60);
      expect(defaults.average_load).toBeNull();
    });

    it("adds a cluster's visible servers only: the hidden one's load never shows", async () => {
      const mine = await typedClient(t, viewer.token).call(getClusterActivityLoad, {
        params: { id: String(CLUSTER) },
        query: { ...window, bucket_seconds: 300, dimension: "server" },
      });
      expect(mine.scope).toEqual({
        kind: "cluster",
        id: CLUSTER,
        name: `cluster-${CLUSTER}`,
        servers: [{ connection_id: a, name: "alpha", vcpus: 4 }],
      });
      expect(mine.total).toEqual([3, 1, 1]);
      expect(mine.series).toEqual([
        { value: String(a), label: "alpha", average_load: 1.952, load: [3, 1, 1] },
      ]);
      const all = await typedClient(t, root.token).call(getClusterActivityLoad, {
        params: { id: String(CLUSTER) },
        query: { ...window, bucket_seconds: 300 },
      });
      expect(all.vcpus).toBe(68);
      expect(all.total).toEqual([13, 11, 1]);
      expect(all.average_load).toBe(11.952);
    });

    it("adds a group's servers: the default group holds the unclustered ones and clusters of no group", async () => {
      const group = await typedClient(t, viewer.token).call(getGroupActivityLoad, {
        params: { id: defaultGroup },
        query: { ...window, bucket_seconds: 300, dimension: "user" },
      });
      expect(group.scope.servers.map((server) => [server.name, server.vcpus])).toEqual([
        ["alpha", 4],
        ["bravo", 4],
      ]);
      // One host reached by two connections: its processors count once.
      expect(group.vcpus).toBe(4);
      expect(group.series).toEqual([
        { value: "app", label: "app", average_load: 1.952, load: [3, 1, 1] },
        { value: "batch", label: "batch", average_load: 0.5, load: [0.5, 0, 0] },
      ]);
      expect(group.total).toEqual([3.5, 1, 1]);
      expect(group.average_load).toBe(2.452);
    });
  });

  describe("top", () => {
    it("ranks queries by load with their share and their waits", async () => {
      const top = await typedClient(t, viewer.token).call(getConnectionActivityTop, {
        params: { id: a },
        query: window,
      });
      expect(top).toEqual({
        scope: alphaScope(),
        start_time: `${day}T10:00:00.000Z`,
        end_time: `${day}T10:15:00.000Z`,
        dimension: "query",
        vcpus: 4,
        average_load: 1.952,
        items: [
          {
            value: "11",
            label: "select count(*) from orders",
            query: "select count(*) from orders",
            load: 1,
            load_percent: 51.2,
            waits: [
              { wait_event_type: "CPU", load: 0.762 },
              { wait_event_type: "IO", load: 0.238 },
            ],
          },
          {
            value: "22",
            label: "update accounts set balance = balance + $1 where id = $2",
            query: "update accounts set balance = balance + $1 where id = $2",
            load: 0.952,
            load_percent: 48.8,
            waits: [{ wait_event_type: "Lock", load: 0.952 }],
          },
        ],
      });
    });

    it("ranks wait events without a wait split, and honours limit", async () => {
      const top = await typedClient(t, viewer.token).call(getClusterActivityTop, {
        params: { id: String(CLUSTER) },
        query: { ...window, dimension: "wait_event", limit: 2 },
      });
      expect(top.items).toEqual([
        {
          value: "transactionid",
          label: "Lock: transactionid",
          wait_event_type: "Lock",
          load: 0.952,
          load_percent: 48.8,
        },
        { value: "CPU", label: "CPU", wait_event_type: "CPU", load: 0.762, load_percent: 39 },
      ]);
      const group = await typedClient(t, viewer.token).call(getGroupActivityTop, {
        params: { id: defaultGroup },
        query: { ...window, dimension: "server" },
      });
      expect(group.items.map((item) => [item.label, item.load])).toEqual([
        ["alpha", 1.952],
        ["bravo", 0.5],
      ]);
    });
  });

  describe("sessions at a moment", () => {
    it("answers the nearest sample with who blocked whom", async () => {
      const answer = await typedClient(t, viewer.token).call(getConnectionActivitySessions, {
        params: { id: a },
        query: { at: `${day}T10:10:01.300Z` },
      });
      expect(answer.scope).toEqual(alphaScope());
      expect(answer.at).toBe(`${day}T10:10:01.300Z`);
      expect(answer.truncated).toBe(false);
      const [server] = answer.servers;
      expect(server?.sampled_at).toBe(`${day}T10:10:01.000Z`);
      expect(server?.session_count).toBe(4);
      expect(server?.sessions.map((s) => [s.pid, s.wait_event_type, s.wait_event])).toEqual([
        [100, "Client", "ClientRead"],
        [101, "Lock", "transactionid"],
        [102, "Lock", "tuple"],
        [103, "CPU", "CPU"],
      ]);
      expect(server?.sessions[1]).toEqual({
        pid: 101,
        database_name: "shop",
        user_name: "app",
        application_name: "psql",
        client_addr: "10.0.0.7",
        backend_type: "client backend",
        state: "active",
        wait_event_type: "Lock",
        wait_event: "transactionid",
        query_id: "22",
        query: "update accounts set balance = 1 where id = 1",
        xact_start: `${day}T10:09:00.000Z`,
        query_start: `${day}T10:09:11.000Z`,
        state_change: `${day}T10:09:30.000Z`,
        blocking_pids: [100],
      });
      expect(
        server?.lock_tree.map((entry) => [entry.depth, entry.pid, entry.blocked_count, entry.blocking_pids]),
      ).toEqual([
        [0, 100, 2, []],
        [1, 101, 1, [100]],
        [2, 102, 0, [101]],
      ]);
    });

    it("answers no sample further than 5 minutes away, and a cluster's visible servers only", async () => {
      const far = await typedClient(t, viewer.token).call(getConnectionActivitySessions, {
        params: { id: a },
        query: { at: `${day}T10:20:00Z` },
      });
      expect(far.servers).toEqual([
        { connection_id: a, name: "alpha", sampled_at: null, session_count: 0, sessions: [], lock_tree: [] },
      ]);
      const cluster = await typedClient(t, viewer.token).call(getClusterActivitySessions, {
        params: { id: String(CLUSTER) },
        query: { at: `${day}T10:10:01Z`, limit: 2 },
      });
      expect(cluster.servers.map((server) => server.connection_id)).toEqual([a]);
      expect(cluster.servers[0]?.sessions.map((s) => s.pid)).toEqual([100, 101]);
      expect(cluster.truncated).toBe(true);
      const group = await typedClient(t, root.token).call(getGroupActivitySessions, {
        params: { id: defaultGroup },
        query: { at: `${day}T10:10:01Z` },
      });
      expect(group.servers.map((server) => [server.name, server.session_count])).toEqual([
        ["alpha", 4],
        ["bravo", 0],
        ["hidden", 1],
      ]);
      // A limit below the sessions keeps each server's sample time and count.
      const cut = await typedClient(t, root.token).call(getGroupActivitySessions, {
        params: { id: defaultGroup },
        query: { at: `${day}T10:10:01Z`, limit: 2 },
      });
      expect(cut.truncated).toBe(true);
      expect(
        cut.servers.map((server) => [
          server.name,
          server.sampled_at,
          server.session_count,
          server.sessions.length,
        ]),
      ).toEqual([
        ["alpha", `${day}T10:10:01.000Z`, 4, 1],
        ["bravo", null, 0, 0],
        ["hidden", `${day}T10:10:01.000Z`, 1, 1],
      ]);
    });
  });

  /**
   * One server reached by two connections, C (database shop) and D (database crm), both the viewer's,
   * in cluster 9101 of a group of its own. The server is sampled once a second and each session is
   * stored under the connection collecting its database: from 11:00 for 5 minutes, 60 ticks a minute
   * under each, 60 samples a minute of shop (under C) and 120 of crm (under D); at 11:00:00 a raw
   * sample of two sessions, shop's (pid 200, under C) blocking crm's (pid 201, under D).
   */
  describe("a server shared by several connections", () => {
    const SHARED_CLUSTER = 9101;
    let c: number;
    let d: number;
    let sharedGroup: number;
    const sharedWindow = { start_time: `${day}T11:00:00Z`, end_time: `${day}T11:05:00Z` };

    beforeAll(async () => {
      const sql = t.datastore.sql;
      c = await addConnection(t, "charlie", { owner: "viewer", clusterId: SHARED_CLUSTER });
      d = await addConnection(t, "delta", { owner: "viewer", clusterId: SHARED_CLUSTER });
      const [group] = await sql<{ id: number }[]>`
        insert into cluster_groups (name) values ('shared servers') returning id`;
      sharedGroup = group?.id as number;
      await sql`update clusters set group_id = ${sharedGroup} where id = ${SHARED_CLUSTER}`;
      await sql`update connections set host = 'shared.test', database_name = 'shop' where id = ${c}`;
      await sql`update connections set host = 'shared.test', database_name = 'crm' where id = ${d}`;
      for (let m = 0; m < 5; m++) {
        const minute = at(`11:0${m}:00`);
        for (const [connection, database, samples] of [
          [c, "shop", 60],
          [d, "crm", 120],
        ] as const) {
          await sql`insert into metrics.activity_ticks (connection_id, minute, ticks) values (${connection}, ${minute}, 60)`;
          await sql`insert into metrics.activity_minutes (connection_id, minute, database_name, user_name,
              application_name, backend_type, state, wait_event_type, wait_event, query_id, samples)
            values (${connection}, ${minute}, ${database}, 'app', 'psql', 'client backend', 'active', '', '', 0,
              ${samples})`;
        }
      }
      for (const [connection, database, pid, blocking] of [
        [c, "shop", 200, []],
        [d, "crm", 201, [200]],
      ] as const) {
        await sql`insert into metrics.activity_samples (connection_id, sampled_at, pid, database_name, user_name,
            application_name, backend_type, state, wait_event_type, wait_event, query_id, query, blocking_pids)
          values (${connection}, ${at("11:00:00")}, ${pid}, ${database}, 'app', 'psql', 'client backend', 'active',
            ${blocking.length > 0 ? "Lock" : null}, ${blocking.length > 0 ? "transactionid" : null}, 0,
            ${`update ${database}`}, ${blocking as unknown as number[]})`;
      }
    });

    it("answers each connection's load for the whole server, as if it monitored it alone", async () => {
      for (const id of [c, d]) {
        const load = await typedClient(t, viewer.token).call(getConnectionActivityLoad, {
          params: { id },
          query: { ...sharedWindow, bucket_seconds: 300, dimension: "database" },
        });
        expect(load.total).toEqual([3]);
        expect(load.series.map((series) => [series.value, series.average_load])).toEqual([
          ["crm", 2],
          ["shop", 1],
        ]);
        const top = await typedClient(t, viewer.token).call(getConnectionActivityTop, {
          params: { id },
          query: { ...sharedWindow, dimension: "database" },
        });
        expect(top.items.map((item) => [item.value, item.load])).toEqual([
          ["crm", 2],
          ["shop", 1],
        ]);
      }
    });

    it("counts the server once in a cluster or group holding several of its connections", async () => {
      const cluster = await typedClient(t, viewer.token).call(getClusterActivityLoad, {
        params: { id: String(SHARED_CLUSTER) },
        query: { ...sharedWindow, bucket_seconds: 300 },
      });
      expect(cluster.total).toEqual([3]);
      const servers = await typedClient(t, viewer.token).call(getGroupActivityTop, {
        params: { id: sharedGroup },
        query: { ...sharedWindow, dimension: "server" },
      });
      // Under the lowest of the requested connections of the server.
      expect(servers.items.map((item) => [item.label, item.load])).toEqual([["charlie", 3]]);
      expect(servers.average_load).toBe(3);
    });

    it("answers a connection's sessions with every session of its server and their lock tree", async () => {
      const answer = await typedClient(t, viewer.token).call(getConnectionActivitySessions, {
        params: { id: d },
        query: { at: `${day}T11:00:00Z` },
      });
      const [server] = answer.servers;
      expect(server?.session_count).toBe(2);
      expect(server?.sessions.map((session) => [session.pid, session.database_name])).toEqual([
        [200, "shop"],
        [201, "crm"],
      ]);
      expect(server?.lock_tree.map((entry) => [entry.depth, entry.pid])).toEqual([
        [0, 200],
        [1, 201],
      ]);
      const cluster = await typedClient(t, viewer.token).call(getClusterActivitySessions, {
        params: { id: String(SHARED_CLUSTER) },
        query: { at: `${day}T11:00:00Z` },
      });
      expect(cluster.servers.map((one) => [one.name, one.session_count])).toEqual([
        ["charlie", 2],
        ["delta", 0],
      ]);
    });
  });

  describe("refusals", () => {
    const paths = () => [
      `/api/v1/connections/${a}/activity/load`,
      `/api/v1/connections/${a}/activity/top`,
      `/api/v1/connections/${a}/activity/sessions`,
      `/api/v1/clusters/${CLUSTER}/activity/load`,
      `/api/v1/clusters/${CLUSTER}/activity/top`,
      `/api/v1/clusters/${CLUSTER}/activity/sessions`,
      `/api/v1/cluster-groups/${defaultGroup}/activity/load`,
      `/api/v1/cluster-groups/${defaultGroup}/activity/top`,
      `/api/v1/cluster-groups/${defaultGroup}/activity/sessions`,
    ];

    it("answers 401 without a token", async () => {
      for (const path of paths()) {
        const res = await requestJson(t.app, path);
        expect(res.status, path).toBe(401);
      }
    });

    it("answers 400 for malformed parameters", async () => {
      const cases: [string, string][] = [
        [
          "dimension=colour",
          "Invalid dimension: must be one of wait_event_type, wait_event, query, database, user, application, client, server",
        ],
        ["start_time=yesterday", "Invalid start_time format, expected RFC3339"],
        [`start_time=${day}T11:00:00Z&end_time=${day}T10:00:00Z`, "start_time must be before end_time"],
        [
          "start_time=2026-10-01T00:00:00Z&end_time=2026-11-20T00:00:00Z",
          "The window may span at most 31 days",
        ],
        ["bucket_seconds=90", "Invalid bucket_seconds: must be a multiple of 60 between 60 and 86400"],
        [
          `start_time=2026-11-01T00:00:00Z&end_time=${day}T00:00:00Z&bucket_seconds=60`,
          "Too many buckets: at most 1000; widen bucket_seconds or narrow the window",
        ],
        ["series=0", "Invalid series: must be between 1 and 25"],
      ];
      for (const [query, error] of cases) {
        const res = await requestJson(t.app, `/api/v1/connections/${a}/activity/load?${query}`, {
          token: viewer.token,
        });
        expect([res.status, await res.json()], query).toEqual([400, { error }]);
      }
      const at = await requestJson(t.app, `/api/v1/clusters/${CLUSTER}/activity/sessions?at=noon`, {
        token: viewer.token,
      });
      expect([at.status, await at.json()]).toEqual([400, { error: "Invalid at format, expected RFC3339" }]);
      const id = await requestJson(t.app, "/api/v1/cluster-groups/x/activity/top", { token: viewer.token });
      expect([id.status, await id.json()]).toEqual([400, { error: "Invalid group ID" }]);
    });

    it("answers 403 for a connection the caller cannot see, 404 for one that does not exist", async () => {
      for (const kind of ["load", "top", "sessions"]) {
        const denied = await requestJson(t.app, `/api/v1/connections/${hidden}/activity/${kind}`, {
          token: viewer.token,
        });
        expect([denied.status, await denied.json()]).toEqual([
          403,
          { error: "Permission denied: you do not have access to this connection" },
        ]);
        const missing = await requestJson(t.app, `/api/v1/connections/99999/activity/${kind}`, {
          token: viewer.token,
        });
        expect([missing.status, await missing.json()]).toEqual([404, { error: "Connection not found" }]);
      }
    });

    it("answers 404 for a cluster or group that does not exist or that the caller cannot see", async () => {
      await t.datastore
        .sql`insert into clusters (id, name, owner_username) overriding system value values (9002, 'theirs', 'root')`;
      const theirs = await addConnection(t, "theirs-only", { owner: "root", clusterId: 9002 });
      expect(theirs).toBeGreaterThan(0);
      for (const kind of ["load", "top", "sessions"]) {
        for (const [path, error] of [
          [`/api/v1/clusters/9002/activity/${kind}`, "Cluster not found"],
          [`/api/v1/clusters/99999/activity/${kind}`, "Cluster not found"],
          [`/api/v1/cluster-groups/99999/activity/${kind}`, "Cluster group not found"],
        ] as const) {
          const res = await requestJson(t.app, path, { token: viewer.token });
          expect([res.status, await res.json()], path).toEqual([404, { error }]);
        }
      }
    });
  });

  describe("MCP tools", () => {
    const textOf = (result: { content: { text: string }[] }) => result.content.map((c) => c.text).join("\n");

    it("refuse a caller without the MCP privilege", async () => {
      for (const tool of ["get_database_load", "get_top_queries_by_load", "get_lock_tree"]) {
        const result = await callBridgeTool(t, viewer.token, tool, { connection_id: a });
        expect(result).toEqual({
          content: [
            { type: "text", text: `Access denied: you do not have permission to use tool '${tool}'` },
          ],
          isError: true,
        });
      }
    });

    describe("with the MCP privileges", () => {
      beforeAll(async () => {
        const group = await t.services.auth.groups.create("assistants", "");
        await t.services.auth.groups.addMember(group.id, { userId: viewer.id });
        const res = await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/mcp`, {
          method: "PUT",
          token: root.token,
          body: { privileges: ["get_database_load", "get_top_queries_by_load", "get_lock_tree"] },
        });
        expect(res.status).toBe(200);
      });

      it("get_database_load answers the load per bucket by dimension with the CPU line", async () => {
        const result = await callBridgeTool(t, viewer.token, "get_database_load", {
          connection_id: a,
          time_start: `${day}T10:00:00Z`,
          time_end: `${day}T10:15:00Z`,
          bucket_seconds: 300,
        });
        expect(textOf(result)).toBe(
          [
            `Database load of connection ${a} (alpha) by wait_event_type, ${day}T10:00:00.000Z to ${day}T10:15:00.000Z, buckets of 300 s`,
            "Average active sessions over the window: 1.952",
            "vCPUs of the host: 4 (load above it means sessions waiting for CPU)",
            "time\ttotal\tLock\tCPU\tIO",
            `${day}T10:00:00.000Z\t3\t2\t1\t0`,
            `${day}T10:05:00.000Z\t1\t0\t0.5\t0.5`,
            `${day}T10:10:00.000Z\t1\t0\t1\t0`,
          ].join("\n"),
        );
      });

      it("get_top_queries_by_load answers queries with their share, waits and text", async () => {
        const result = await callBridgeTool(t, viewer.token, "get_top_queries_by_load", {
          connection_id: a,
          time_start: `${day}T10:00:00Z`,
          time_end: `${day}T10:15:00Z`,
        });
        expect(textOf(result).split("\n").slice(3)).toEqual([
          "query_id\tload\tload_percent\twaits\tquery",
          "11\t1\t51.2\tCPU 0.762, IO 0.238\tselect count(*) from orders",
          "22\t0.952\t48.8\tLock 0.952\tupdate accounts set balance = balance + $1 where id = $2",
        ]);
      });

      it("get_lock_tree answers who blocked whom at the nearest sample", async () => {
        const result = await callBridgeTool(t, viewer.token, "get_lock_tree", {
          connection_id: a,
          at: `${day}T10:10:01.300Z`,
        });
        expect(textOf(result)).toBe(
          [
            `Sessions of connection ${a} (alpha) sampled at ${day}T10:10:01.000Z (nearest to ${day}T10:10:01.300Z): 4 active`,
            "depth\tpid\tblocks\tstate\twait\tuser\txact_start\tquery",
            `0\t100\t2\tidle in transaction\tClient:ClientRead\tapp\t${day}T10:09:00.000Z\tupdate accounts set balance = 0 where id = 1`,
            `1\t101\t1\tactive\tLock:transactionid\tapp\t${day}T10:09:00.000Z\tupdate accounts set balance = 1 where id = 1`,
            `2\t102\t0\tactive\tLock:tuple\tapp\t${day}T10:09:00.000Z\tupdate accounts set balance = 2 where id = 1`,
          ].join("\n"),
        );
        const none = await callBridgeTool(t, viewer.token, "get_lock_tree", {
          connection_id: a,
          at: `${day}T12:00:00Z`,
        });
        expect(textOf(none)).toBe(
          `No session sample of connection ${a} (alpha) within 5 minutes of ${day}T12:00:00.000Z`,
        );
      });

      it("refuse a hidden connection and malformed arguments as tool errors", async () => {
        for (const tool of ["get_database_load", "get_top_queries_by_load", "get_lock_tree"]) {
          const hiddenResult = await callBridgeTool(t, viewer.token, tool, { connection_id: hidden });
          expect(hiddenResult).toEqual({
            content: [
              { type: "text", text: `Access denied: you do not have access to connection ${hidden}` },
            ],
            isError: true,
          });
        }
        const bucket = await callBridgeTool(t, viewer.token, "get_database_load", {
          connection_id: a,
          bucket_seconds: 90,
        });
        expect(bucket.isError).toBe(true);
        const window = await callBridgeTool(t, viewer.token, "get_database_load", {
          connection_id: a,
          time_start: "now",
          time_end: "1h",
        });
        expect(window).toEqual({
          content: [{ type: "text", text: "start_time must be before end_time" }],
          isError: true,
        });
      });
    });
  });
});
