import { acknowledgeAlert, alertCounts, listAlerts, listTimelineEvents } from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeAlertCounts } from "../src/clusters/status.js";
import { buildSnapshot } from "../src/overview/snapshot.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

/**
 * Whole-server alerts (issue 28 item 3) are kept once per server, under the connection that speaks
 * for it (the lowest-id monitored one at its address), and seen through every monitored connection
 * of the server: whoever sees one of them lists, counts and acknowledges the server's alert, under
 * the connection it sees; whoever sees none does not.
 */
let t: TestApp;
let admin: TestUser;
/** Sees only `app`, the server's second connection. */
let appTeam: TestUser;
/** Sees only a connection of another server. */
let outsider: TestUser;
let speaker: number;
let app: number;
let elsewhere: number;
let serverAlert: number;
let databaseAlert: number;

async function addConnection(name: string, owner: string, host: string, database: string): Promise<number> {
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_shared)
    values (${name}, ${host}, 5432, ${database}, 'monitor', ${owner}, false) returning id`;
  const id = (row as { id: number }).id;
  t.connections.push({ id, ownerUsername: owner, isShared: false });
  return id;
}

async function addAlert(
  connectionId: number,
  title: string,
  options: { serverWide: boolean; database?: string },
): Promise<number> {
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into alerts (alert_type, connection_id, database_name, severity, title, description, status, server_wide,
      triggered_at)
    values ('threshold', ${connectionId}, ${options.database ?? null}, 'warning', ${title}, '', 'active',
      ${options.serverWide}, now() - interval '10 minutes')
    returning id::int as id`;
  return (row as { id: number }).id;
}

const as = (user: TestUser) => typedClient(t, user.token);
const listed = async (user: TestUser, query: { connection_id?: number } = {}) =>
  (await as(user).call(listAlerts, { query: { ...query, limit: 100 } })).alerts.map((alert) => ({
    id: alert.id,
    connection_id: alert.connection_id,
    server_name: alert.server_name,
  }));

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t, "root", { superuser: true });
  appTeam = await createUser(t, "app-team");
  outsider = await createUser(t, "outsider");
  speaker = await addConnection("db-postgres", "root", "db.example.com", "postgres");
  app = await addConnection("db-app", "app-team", "db.example.com", "app");
  elsewhere = await addConnection("other-server", "outsider", "other.example.com", "postgres");
  serverAlert = await addAlert(speaker, "memory_usage_high", { serverWide: true });
  // A database's alert is its connection's alone, even on a shared server.
  databaseAlert = await addAlert(speaker, "deadlocks_detected", { serverWide: false, database: "postgres" });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe("whole-server alerts and who sees them", () => {
  it("are listed once: for an administrator under the speaking connection, for the app team under its own", async () => {
    expect(await listed(admin)).toEqual([
      { id: databaseAlert, connection_id: speaker, server_name: "db-postgres" },
      { id: serverAlert, connection_id: speaker, server_name: "db-postgres" },
    ]);
    // Filtering by the server's other connection finds the server's alert there, not the database's.
    expect(await listed(admin, { connection_id: app })).toEqual([
      { id: serverAlert, connection_id: app, server_name: "db-app" },
    ]);
    expect(await listed(appTeam)).toEqual([{ id: serverAlert, connection_id: app, server_name: "db-app" }]);
    expect(await listed(outsider)).toEqual([]);
    expect(await listed(outsider, { connection_id: app })).toEqual([]);
  });

  it("are counted once, under the connection they are seen through", async () => {
    expect(await as(appTeam).call(alertCounts)).toMatchObject({
      total: 1,
      by_server: { [String(app)]: 1 },
    });
    expect(await as(admin).call(alertCounts)).toMatchObject({
      total: 2,
      by_server: { [String(speaker)]: 2 },
    });
    expect(await as(outsider).call(alertCounts)).toMatchObject({ total: 0, by_server: {} });
    // Server status (topology, overview): every connection of the server shows its server's alert.
    const perConnection = await activeAlertCounts(t.datastore.sql);
    expect([perConnection.get(speaker), perConnection.get(app), perConnection.get(elsewhere)]).toEqual([
      2,
      1,
      undefined,
    ]);
  });

  it("the overview of the app team's connections holds the server's alert, under its connection", async () => {
    const snapshot = await buildSnapshot(
      { sql: t.datastore.sql, timeline: t.services.timeline },
      [app],
      new Date(),
    );
    expect(snapshot.top_alerts).toEqual([
      { title: "memory_usage_high", server_name: "db-app", severity: "warning" },
    ]);
    expect(snapshot.servers).toEqual([expect.objectContaining({ id: app, active_alert_count: 1 })]);
    const outside = await buildSnapshot(
      { sql: t.datastore.sql, timeline: t.services.timeline },
      [elsewhere],
      new Date(),
    );
    expect(outside.top_alerts).toEqual([]);
  });

  it("can be acknowledged by whoever sees a connection of the server, and by nobody else", async () => {
    const refused = await requestJson(t.app, "/api/v1/alerts/acknowledge", {
      method: "POST",
      body: { alert_id: serverAlert },
      token: outsider.token,
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "Access denied" });
    // The database's alert stays hidden from the app team.
    const hidden = await requestJson(t.app, "/api/v1/alerts/acknowledge", {
      method: "POST",
      body: { alert_id: databaseAlert },
      token: appTeam.token,
    });
    expect(hidden.status).toBe(403);
    expect(
      await as(appTeam).call(acknowledgeAlert, { body: { alert_id: serverAlert, message: "on it" } }),
    ).toEqual({ status: "acknowledged" });
    const [acknowledged] = (await as(admin).call(listAlerts, { query: { status: "acknowledged" } })).alerts;
    expect(acknowledged).toMatchObject({
      id: serverAlert,
      acknowledged_by: "app-team",
      ack_message: "on it",
    });
  });

  it("are on the timeline of the app team under its connection, and not on the outsider's", async () => {
    const window = {
      start_time: new Date(Date.now() - 3600_000).toISOString(),
      end_time: new Date(Date.now() + 60_000).toISOString(),
      event_types: "alert_fired,alert_acknowledged",
    };
    const events = async (user: TestUser) =>
      (await as(user).call(listTimelineEvents, { query: window })).events.map((event) => [
        event.event_type,
        event.connection_id,
        event.server_name,
      ]);
    expect(await events(appTeam)).toEqual([
      ["alert_acknowledged", app, "db-app"],
      ["alert_fired", app, "db-app"],
    ]);
    expect(await events(outsider)).toEqual([]);
  });

  it("are no longer seen through a connection that is not monitored", async () => {
    await t.datastore.sql`update connections set is_monitored = false where id = ${app}`;
    try {
      expect(await listed(appTeam)).toEqual([]);
      const refused = await requestJson(t.app, `/api/v1/alerts/acknowledge?alert_id=${serverAlert}`, {
        method: "DELETE",
        token: appTeam.token,
      });
      expect(refused.status).toBe(403);
    } finally {
      await t.datastore.sql`update connections set is_monitored = true where id = ${app}`;
    }
  });
});
