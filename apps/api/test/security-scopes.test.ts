import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "./support.js";

/**
 * A scope narrows a superuser's token like anyone's (docs/auth.md): a superuser's token scoped to
 * manage_blackouts and read on one connection must not take any superuser shortcut.
 */
describe("a superuser's scoped token", () => {
  let t: TestApp;
  let root: TestUser;
  let scoped: string;
  let groupId: number;
  let inScope: number;
  let outOfScope: number;

  const addConnection = async (name: string): Promise<number> => {
    const [row] = await t.datastore.sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username, is_shared)
      values (${name}, '127.0.0.1', 5432, 'postgres', 'postgres', 'someone', false) returning id`;
    const id = (row as { id: number }).id;
    t.connections.push({ id, ownerUsername: "someone", isShared: false });
    return id;
  };
  const addAlert = async (connectionId: number) => {
    await t.datastore.sql`
      insert into alerts (alert_type, connection_id, severity, title, description, status)
      values ('threshold', ${connectionId}, 'warning', 'Connection error: x', 'refused', 'active')`;
  };

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    inScope = await addConnection("in-scope");
    outOfScope = await addConnection("out-of-scope");
    await addAlert(inScope);
    await addAlert(outOfScope);
    const group = await requestJson(t.app, "/api/v1/rbac/groups", {
      method: "POST",
      token: root.token,
      body: { name: "operators", description: "" },
    });
    groupId = ((await group.json()) as { id: number }).id;
    const issued = await requestJson(t.app, "/api/v1/rbac/tokens", {
      method: "POST",
      token: root.token,
      body: { owner_username: "root", annotation: "narrow" },
    });
    const token = (await issued.json()) as { id: number; token: string };
    const scope = await requestJson(t.app, `/api/v1/rbac/tokens/${token.id}/scope`, {
      method: "PUT",
      token: root.token,
      body: {
        connections: [{ connection_id: inScope, access_level: "read" }],
        admin_permissions: ["manage_blackouts"],
      },
    });
    expect(scope.status).toBe(204);
    scoped = token.token;
  });
  afterAll(() => t.close());

  it("cannot use superuser-only operations", async () => {
    const res = await requestJson(t.app, `/api/v1/rbac/groups/${groupId}/permissions`, {
      method: "PUT",
      token: scoped,
      body: { permissions: ["*"] },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "Permission denied: requires superuser privileges" });
    const permissions = await requestJson(t.app, `/api/v1/rbac/groups/${groupId}/permissions`, {
      token: root.token,
    });
    expect(await permissions.json()).toMatchObject({ permissions: [] });
  });

  it("sees only the alerts of its connection", async () => {
    const res = await requestJson(t.app, "/api/v1/alerts", { token: scoped });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { alerts: { connection_id: number }[]; total: number };
    expect(body.alerts.map((alert) => alert.connection_id)).toEqual([inScope]);
    expect(body.total).toBe(1);
    const all = (await (await requestJson(t.app, "/api/v1/alerts", { token: root.token })).json()) as {
      total: number;
    };
    expect(all.total).toBe(2);
  });

  it("is refused a connection outside its scope", async () => {
    const res = await requestJson(t.app, `/api/v1/server-info/${outOfScope}`, { token: scoped });
    expect(res.status).toBe(403);
  });
});
