import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningCollector, startCollector } from "@dbmon/collector";
import { listTimelineEvents } from "@dbmon/contract";
import {
  type EmbeddedServer,
  encryptSecret,
  loadSecretKey,
  silentLogger,
  startEmbeddedServer,
} from "@dbmon/datastore";
import { waitFor } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InputOf } from "./contract-types.js";
import { addConnection } from "./monitoring-support.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

interface Event {
  id: string;
  event_type: string;
  connection_id: number;
  server_name: string;
  occurred_at: string;
  severity: string;
  title: string;
  summary: string;
  details: { change_count: number; changes: { name: string }[] };
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe("timeline events", () => {
  let t: TestApp;
  let root: TestUser;
  let stranger: TestUser;
  let server: EmbeddedServer;
  let dataDir: string;
  let collector: RunningCollector | undefined;
  let monitoredId: number;
  const startedAt = new Date(Date.now() - 60_000);

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    stranger = await createUser(t, "stranger");
    dataDir = await mkdtemp(join(tmpdir(), "dbmon-timeline-"));
    server = await startEmbeddedServer({ dataDir, port: 0, logger: silentLogger });
    const url = new URL(server.url);
    const secretKey = await loadSecretKey({ dataDir });
    const [row] = await t.datastore.sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, password_encrypted, sslmode, owner_username)
      values ('embedded-18', '127.0.0.1', ${server.port}, 'postgres', ${decodeURIComponent(url.username)},
        ${encryptSecret(secretKey, decodeURIComponent(url.password))}, 'disable', 'root')
      returning id`;
    monitoredId = row?.id as number;
    t.connections.push({ id: monitoredId, ownerUsername: "root", isShared: false });
    const startMonitoring = () =>
      startCollector({
        datastore: t.datastore,
        logger: quiet,
        secretKey,
        intervalOverrides: { pg_settings: 0.5, pg_node_role: 0.5 },
        backoffInitialSeconds: 0.2,
        backoffMaxSeconds: 0.5,
      });
    // Only the two probes the timeline reads are run often; the others run once.
    collector = await startMonitoring();
    const nodeRoles = async () => {
      const [count] = await t.datastore.sql<{ n: number; starts: number }[]>`
        select count(*)::int as n, count(distinct postmaster_start_time)::int as starts
        from metrics.pg_node_role where connection_id = ${monitoredId}`;
      return count;
    };
    const settingsSnapshots = async () =>
      (await t.datastore.sql`select 1 from metrics.pg_settings where connection_id = ${monitoredId} limit 1`)
        .length;
    await waitFor(
      "a first settings snapshot and node role",
      async () => (((await nodeRoles())?.n ?? 0) > 0 && (await settingsSnapshots()) > 0 ? true : undefined),
      30_000,
    );
    // A configuration change...
    const admin = postgres(server.url, { max: 1, onnotice: () => {} });
    await admin`alter system set work_mem = '7MB'`;
    await admin`select pg_reload_conf()`;
    await admin.end();
    await waitFor(
      "the changed setting to be collected",
      async () =>
        (
          await t.datastore.sql`select 1 from metrics.pg_settings
            where connection_id = ${monitoredId} and name = 'work_mem' and setting = '7168'`
        ).length > 0
          ? true
          : undefined,
      30_000,
    );
    // ...and a restart of the monitored server.
    await server.stop();
    server = await startEmbeddedServer({ dataDir, port: server.port, logger: silentLogger });
    await waitFor(
      "the restart to be collected",
      async () => (((await nodeRoles())?.starts ?? 0) > 1 ? true : undefined),
      60_000,
    );
    await collector.stop();
    collector = undefined;
  }, 120_000);

  afterAll(async () => {
    await collector?.stop();
    await server?.stop();
    await t?.close();
    if (dataDir) {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  const window = () =>
    `start_time=${encodeURIComponent(startedAt.toISOString())}&end_time=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`;
  /** The events since the suite started, as `user` lists them through the typed client. */
  const events = (user: TestUser, query: InputOf<typeof listTimelineEvents>["query"] = {}) =>
    typedClient(t, user.token).call(listTimelineEvents, {
      query: {
        start_time: startedAt.toISOString(),
        end_time: new Date(Date.now() + 60_000).toISOString(),
        ...query,
      },
    });

  it("shows a configuration change and a restart of the monitored server", async () => {
    const body = (await events(root, { connection_id: monitoredId })) as {
      events: Event[];
      total_count: number;
    };
    const config = body.events.find(
      (event) =>
        event.event_type === "config_change" &&
        event.details.changes.some((change) => change.name === "work_mem"),
    );
    expect(config).toMatchObject({
      connection_id: monitoredId,
      server_name: "embedded-18",
      severity: "info",
      title: "Configuration Changed",
    });
    expect(config?.id).toMatch(new RegExp(`^config-${monitoredId}-\\d+$`));
    expect(config?.details.changes).toContainEqual({
      name: "work_mem",
      old_value: "4096",
      new_value: "7168",
      change_type: "modified",
    });
    expect(config?.summary).toBe(`Changed ${config?.details.change_count} settings`);
    const restart = body.events.find((event) => event.event_type === "restart");
    expect(restart).toMatchObject({
      severity: "warning",
      title: "Server Restart Detected",
      server_name: "embedded-18",
    });
    expect(body.total_count).toBe(body.events.length);
    const times = body.events.map((event) => Date.parse(event.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const onlyRestarts = await events(root, { event_types: "restart", limit: 1 });
    expect(onlyRestarts.events.map((event) => event.event_type)).toEqual(["restart"]);
    const hidden = await events(stranger);
    expect(hidden.events).toEqual([]);
  });

  it("includes alerts, acknowledgments and blackouts", async () => {
    const other = await addConnection(t, "other", { owner: "root" });
    const sql = t.datastore.sql;
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 1000).toISOString();
    const [alert] = await sql<
      { id: number }[]
    >`insert into alerts (alert_type, connection_id, title, severity, status, triggered_at, cleared_at)
      values ('threshold', ${other}, 'High CPU', 'critical', 'cleared', ${at(50)}, ${at(20)}) returning id`;
    await sql`insert into alert_acknowledgments (alert_id, acknowledged_at, acknowledged_by, false_positive, message)
      values (${alert?.id as number}, ${at(30)}, 'root', true, 'benchmark')`;
    await sql`insert into blackouts (scope, connection_id, start_time, end_time, reason, created_by)
      values ('estate', null, ${at(40)}, ${at(10)}, 'maintenance', 'root')`;
    const body = await events(root, { connection_ids: String(other) });
    expect(
      body.events.map((event) => [
        event.event_type,
        event.title,
        event.severity,
        event.connection_id,
        event.server_name,
      ]),
    ).toEqual([
      ["blackout_ended", "Blackout Ended", "info", 0, "All Servers"],
      ["alert_cleared", "Alert Cleared: High CPU", "info", other, "other"],
      ["alert_acknowledged", "Alert Marked False Positive: High CPU", "info", other, "other"],
      ["blackout_started", "Blackout Started", "info", 0, "All Servers"],
      ["alert_fired", "Alert Fired: High CPU", "critical", other, "other"],
    ]);
    expect(body.events[0]?.id).toMatch(/^blackout-end-\d+$/);
  });

  it("refuses bad parameters with the reference's messages", async () => {
    const errorOf = async (query: string, token = root.token) => {
      const res = await requestJson(t.app, `/api/v1/timeline/events?${query}`, { token });
      return { status: res.status, body: await res.json() };
    };
    expect(await errorOf("end_time=2026-11-22T00:00:00Z")).toEqual({
      status: 400,
      body: { error: "start_time is required" },
    });
    expect((await errorOf("start_time=yesterday&end_time=2026-11-22T00:00:00Z")).body).toEqual({
      error: "Invalid start_time format, expected RFC3339",
    });
    expect((await errorOf("start_time=2026-11-22T00:00:00Z&end_time=2026-11-21T00:00:00Z")).body).toEqual({
      error: "end_time must be after start_time",
    });
    // The window is bounded (31 days, in the operation's description): events are derived per request.
    expect((await errorOf("start_time=2026-10-01T00:00:00Z&end_time=2026-11-01T00:00:00Z")).status).toBe(200);
    expect(await errorOf("start_time=2026-10-01T00:00:00Z&end_time=2026-11-01T00:00:01Z")).toEqual({
      status: 400,
      body: { error: "The window from start_time to end_time may span at most 31 days" },
    });
    expect((await errorOf("start_time=1970-01-01T00:00:00Z&end_time=2999-01-01T00:00:00Z")).status).toBe(400);
    expect((await errorOf(`${window()}&event_types=foo`)).body).toEqual({ error: "Invalid event_type: foo" });
    expect((await errorOf(`${window()}&connection_id=abc`)).body).toEqual({ error: "Invalid connection_id" });
    expect((await errorOf(`${window()}&connection_ids=1,abc`)).body).toEqual({
      error: "Invalid connection_ids",
    });
    expect((await errorOf(window(), "")).status).toBe(401);
  });
});
