import { createGroup, createToken, getGroupPermissions, listAlerts, setTokenScope } from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

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
    const api = typedClient(t, root.token);
    groupId = (await api.call(createGroup, { body: { name: "operators", description: "" } })).id;
    const token = await api.call(createToken, { body: { owner_username: "root", annotation: "narrow" } });
    await api.call(setTokenScope, {
      params: { id: token.id },
      body: {
        connections: [{ connection_id: inScope, access_level: "read" }],
        admin_permissions: ["manage_blackouts"],
      },
    });
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
    expect(
      await typedClient(t, root.token).call(getGroupPermissions, { params: { id: groupId } }),
    ).toMatchObject({ permissions: [] });
  });

  it("sees only the alerts of its connection", async () => {
    const body = await typedClient(t, scoped).call(listAlerts);
    expect(body.alerts.map((alert) => alert.connection_id)).toEqual([inScope]);
    expect(body.total).toBe(1);
    expect((await typedClient(t, root.token).call(listAlerts)).total).toBe(2);
  });

  it("is refused a connection outside its scope", async () => {
    const res = await requestJson(t.app, `/api/v1/server-info/${outOfScope}`, { token: scoped });
    expect(res.status).toBe(403);
  });
});
