import {
  createBlackout,
  createBlackoutSchedule,
  createToken,
  setTokenScope,
  stopBlackout,
  updateBlackout,
  updateBlackoutSchedule,
  updateConnection,
  updateUser,
  userInfo,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  createUser,
  login,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

/**
 * Issue 23, "access decided in one place": what a caller may see, change or manage is answered by
 * the access module for every row and scope, and no service takes a shortcut around it.
 */
let t: TestApp;
let root: TestUser;
/** manage_blackouts, owner of the visible connection only. */
let operator: TestUser;
let visibleId: number;
let hiddenId: number;
let hiddenClusterId: number;
let hiddenGroupId: number;

const call = (token: string, method: string, path: string, body?: unknown) =>
  requestJson(t.app, path, { method, token, body });

async function addConnection(name: string, owner: string | null, clusterId: number | null): Promise<number> {
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_shared, cluster_id)
    values (${name}, '127.0.0.1', 5432, 'postgres', 'postgres', ${owner}, false, ${clusterId}) returning id`;
  return (row as { id: number }).id;
}

/** A token of `username` narrowed (by root) to `scope`. */
async function scopedToken(
  username: string,
  scope: {
    connections?: { connection_id: number; access_level: "read" | "read_write" }[];
    admin_permissions?: string[];
  },
): Promise<string> {
  const api = typedClient(t, root.token);
  const token = await api.call(createToken, { body: { owner_username: username, annotation: "narrow" } });
  await api.call(setTokenScope, { params: { id: token.id }, body: scope });
  return token.token;
}

beforeAll(async () => {
  t = await buildTestApp();
  root = await createUser(t, "root", { superuser: true });
  operator = await createUser(t, "operator", { permissions: ["manage_blackouts"] });
  const [group] = await t.datastore.sql<{ id: number }[]>`
    insert into cluster_groups (name) values ('hidden group') returning id`;
  hiddenGroupId = (group as { id: number }).id;
  const [cluster] = await t.datastore.sql<{ id: number }[]>`
    insert into clusters (name, group_id) values ('hidden cluster', ${hiddenGroupId}) returning id`;
  hiddenClusterId = (cluster as { id: number }).id;
  visibleId = await addConnection("visible", "operator", null);
  hiddenId = await addConnection("hidden", "root", hiddenClusterId);
}, 60_000);

afterAll(() => t?.close());

describe("blackouts and schedules on scopes the caller cannot see", () => {
  const hiddenScopes = () => [
    { scope: "server", connection_id: hiddenId },
    { scope: "cluster", cluster_id: hiddenClusterId },
    { scope: "group", group_id: hiddenGroupId },
  ];
  const window = () => ({
    reason: "maintenance",
    start_time: new Date(Date.now() - 60_000).toISOString(),
    end_time: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const schedule = { name: "weekly", cron_expression: "0 2 * * 0", duration_minutes: 60, reason: "patching" };

  it("are not found by id: GET, PUT, stop and DELETE answer 404 and change nothing", async () => {
    for (const target of hiddenScopes()) {
      const { id } = await typedClient(t, root.token).call(createBlackout, {
        body: { ...target, ...window() },
      });
      const before = await t.datastore.sql`select * from blackouts where id = ${id}`;
      const path = `/api/v1/blackouts/${id}`;
      const attempts = [
        [await call(operator.token, "GET", path), "Blackout not found"],
        [await call(operator.token, "PUT", path, { reason: "hijacked" }), "Blackout not found"],
        // As for a window that does not exist.
        [await call(operator.token, "POST", `${path}/stop`), "Blackout not found or not currently active"],
        [await call(operator.token, "DELETE", path), "Blackout not found"],
      ] as const;
      for (const [res, error] of attempts) {
        expect([target.scope, res.status]).toEqual([target.scope, 404]);
        expect(await res.json()).toEqual({ error });
      }
      expect(await t.datastore.sql`select * from blackouts where id = ${id}`).toEqual(before);
    }
  });

  it("schedules too: GET, PUT and DELETE answer 404 and change nothing", async () => {
    for (const target of hiddenScopes()) {
      const { id } = await typedClient(t, root.token).call(createBlackoutSchedule, {
        body: { ...target, ...schedule },
      });
      const before = await t.datastore.sql`select * from blackout_schedules where id = ${id}`;
      const path = `/api/v1/blackout-schedules/${id}`;
      const attempts = [
        await call(operator.token, "GET", path),
        await call(operator.token, "PUT", path, { ...target, ...schedule, name: "hijacked" }),
        await call(operator.token, "PUT", path, { scope: "server", connection_id: visibleId, ...schedule }),
        await call(operator.token, "DELETE", path),
      ];
      for (const res of attempts) {
        expect([target.scope, res.status]).toEqual([target.scope, 404]);
        expect(await res.json()).toEqual({ error: "Blackout schedule not found" });
      }
      expect(await t.datastore.sql`select * from blackout_schedules where id = ${id}`).toEqual(before);
    }
  });

  it("cannot be created on them, nor moved onto them (404 as for a scope that does not exist)", async () => {
    const notFound = {
      server: "Connection not found",
      cluster: "Cluster not found",
      group: "Cluster group not found",
    } as const;
    const { id: ownId } = await typedClient(t, operator.token).call(createBlackoutSchedule, {
      body: { scope: "server", connection_id: visibleId, ...schedule },
    });
    for (const target of hiddenScopes()) {
      const message = { error: notFound[target.scope as keyof typeof notFound] };
      const blackout = await call(operator.token, "POST", "/api/v1/blackouts", { ...target, ...window() });
      expect([target.scope, blackout.status]).toEqual([target.scope, 404]);
      expect(await blackout.json()).toEqual(message);
      const created = await call(operator.token, "POST", "/api/v1/blackout-schedules", {
        ...target,
        ...schedule,
      });
      expect([target.scope, created.status]).toEqual([target.scope, 404]);
      expect(await created.json()).toEqual(message);
      const moved = await call(operator.token, "PUT", `/api/v1/blackout-schedules/${ownId}`, {
        ...target,
        ...schedule,
      });
      expect([target.scope, moved.status]).toEqual([target.scope, 404]);
      expect(await moved.json()).toEqual(message);
    }
    const [{ n } = { n: -1 }] = await t.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from blackouts where created_by = 'operator'`;
    expect(n).toBe(0);
    const [kept] = await t.datastore.sql`select connection_id from blackout_schedules where id = ${ownId}`;
    expect(kept?.connection_id).toBe(visibleId);
  });

  it("while windows and schedules on a scope the caller sees whole are managed as before", async () => {
    const api = typedClient(t, operator.token);
    // The estate holds a connection hidden from the operator: silencing it is for who sees them all
    // (scoped-settings.test.ts, "a scope holding connections hidden from the caller").
    expect(
      (await call(operator.token, "POST", "/api/v1/blackouts", { scope: "estate", ...window() })).status,
    ).toBe(403);
    for (const target of [{ scope: "server", connection_id: visibleId }]) {
      const { id } = await api.call(createBlackout, { body: { ...target, ...window() } });
      expect(
        await api.call(updateBlackout, { params: { id }, body: { reason: "longer maintenance" } }),
      ).toMatchObject({ reason: "longer maintenance" });
      expect(await api.call(stopBlackout, { params: { id } })).toMatchObject({ is_active: false });
      expect((await call(operator.token, "DELETE", `/api/v1/blackouts/${id}`)).status).toBe(200);
      const created = await api.call(createBlackoutSchedule, { body: { ...target, ...schedule } });
      expect(
        await api.call(updateBlackoutSchedule, {
          params: { id: created.id },
          body: { ...target, ...schedule, name: "renamed" },
        }),
      ).toMatchObject({ name: "renamed" });
      expect((await call(operator.token, "DELETE", `/api/v1/blackout-schedules/${created.id}`)).status).toBe(
        200,
      );
    }
  });

  it("a superuser's token scoped to one connection is held to the same rule", async () => {
    const narrow = await scopedToken("root", {
      connections: [{ connection_id: visibleId, access_level: "read" }],
      admin_permissions: ["manage_blackouts"],
    });
    const { id } = await typedClient(t, root.token).call(createBlackout, {
      body: { scope: "server", connection_id: hiddenId, ...window() },
    });
    expect((await call(narrow, "PUT", `/api/v1/blackouts/${id}`, { reason: "hijacked" })).status).toBe(404);
    expect((await call(narrow, "DELETE", `/api/v1/blackouts/${id}`)).status).toBe(404);
    const created = await call(narrow, "POST", "/api/v1/blackouts", {
      scope: "cluster",
      cluster_id: hiddenClusterId,
      ...window(),
    });
    expect(created.status).toBe(404);
  });
});

describe("changing a connection", () => {
  it("a token scoped to read on a connection cannot edit or delete it, even when its owner could", async () => {
    const owned = await addConnection("owned-by-conn-owner", "conn-owner", null);
    const owner = await createUser(t, "conn-owner");
    const manager = await createUser(t, "conn-manager", { permissions: ["manage_connections"] });
    const read = [{ connection_id: owned, access_level: "read" as const }];
    const tokens = [
      await scopedToken("conn-owner", { connections: read }),
      await scopedToken("conn-manager", { connections: read }),
      await scopedToken("conn-manager", {
        connections: [{ connection_id: 0, access_level: "read" }],
      }),
    ];
    const before = await t.datastore.sql`select * from connections where id = ${owned}`;
    for (const token of tokens) {
      const edit = await call(token, "PUT", `/api/v1/connections/${owned}`, { description: "changed" });
      expect(edit.status).toBe(403);
      expect(await edit.json()).toEqual({
        error:
          "Permission denied: you must be the owner or have the manage_connections permission to update this connection",
      });
      const removal = await call(token, "DELETE", `/api/v1/connections/${owned}`);
      expect(removal.status).toBe(403);
    }
    expect(await t.datastore.sql`select * from connections where id = ${owned}`).toEqual(before);
    // Their sessions, unscoped, may.
    for (const user of [owner, manager]) {
      expect(
        await typedClient(t, user.token).call(updateConnection, {
          params: { id: owned },
          body: { description: `changed by ${user.username}` },
        }),
      ).toMatchObject({ description: `changed by ${user.username}` });
    }
    const writer = await scopedToken("conn-owner", {
      connections: [{ connection_id: owned, access_level: "read_write" }],
    });
    expect((await call(writer, "DELETE", `/api/v1/connections/${owned}`)).status).toBe(204);
  });

  it("only a caller holding read_write on a connection may share it", async () => {
    const someoneElses = await addConnection("someone-elses", "root", null);
    const own = await addConnection("share-managers-own", "share-manager", null);
    const manager = await createUser(t, "share-manager", { permissions: ["manage_connections"] });
    const refused = await call(manager.token, "PUT", `/api/v1/connections/${someoneElses}`, {
      is_shared: true,
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: `Permission denied: you cannot grant read_write on connection ${someoneElses}, which you do not hold yourself`,
    });
    const readOnly = await scopedToken("share-manager", {
      connections: [{ connection_id: 0, access_level: "read" }],
    });
    expect((await call(readOnly, "PUT", `/api/v1/connections/${own}`, { is_shared: true })).status).toBe(403);
    const [row] = await t.datastore.sql`
      select count(*)::int as n from connections where is_shared and id in (${someoneElses}, ${own})`;
    expect(row?.n).toBe(0);
    // Its own connection (read_write as owner) it may share, and unsharing needs no more than editing.
    expect(
      await typedClient(t, manager.token).call(updateConnection, {
        params: { id: own },
        body: { is_shared: true },
      }),
    ).toMatchObject({ is_shared: true });
    expect(
      await typedClient(t, root.token).call(updateConnection, {
        params: { id: someoneElses },
        body: { is_shared: true },
      }),
    ).toMatchObject({ is_shared: true });
  });
});

describe("setting a user's password", () => {
  it("a manage_users holder cannot set the password of a user holding rights it lacks", async () => {
    await addConnection("held", "connection-holder", null);
    await addConnection("user-admins-own", "user-admin", null);
    const admin = await createUser(t, "user-admin", { permissions: ["manage_users"] });
    const dba = await createUser(t, "dba", { permissions: ["manage_connections"] });
    const holder = await createUser(t, "connection-holder");
    const plain = await createUser(t, "plain-user");
    const setPassword = (token: string, user: TestUser, password: string) =>
      call(token, "PUT", `/api/v1/rbac/users/${user.id}`, { password });

    const takeover = await setPassword(admin.token, dba, "taken-over-password-1");
    expect(takeover.status).toBe(403);
    expect(await takeover.json()).toEqual({
      error:
        "Permission denied: you cannot set the password of a user holding admin permission manage_connections, which you do not hold yourself",
    });
    // Owning a connection is holding read_write on it.
    expect((await setPassword(admin.token, holder, "taken-over-password-1")).status).toBe(403);
    await expect(login(t, "dba", "taken-over-password-1")).rejects.toThrow();
    await expect(login(t, "connection-holder", "taken-over-password-1")).rejects.toThrow();

    // Other changes are no takeover, and a user holding no more than the caller may get a new password.
    const api = typedClient(t, admin.token);
    await api.call(updateUser, { params: { id: dba.id }, body: { display_name: "The DBA" } });
    await api.call(updateUser, { params: { id: plain.id }, body: { password: "a-fresh-password-1" } });
    expect(await login(t, "plain-user", "a-fresh-password-1")).toBeTruthy();
    // A token holds only its scope: one that reads every connection cannot take over its own owner,
    // who owns a connection (read_write); the owner's session can change its own password.
    const narrow = await scopedToken("user-admin", {
      connections: [{ connection_id: 0, access_level: "read" }],
      admin_permissions: ["manage_users"],
    });
    expect((await setPassword(narrow, admin, "a-fresh-password-2")).status).toBe(403);
    expect((await setPassword(admin.token, admin, "a-fresh-password-2")).status).toBe(200);
  });
});

describe("GET /user/info", () => {
  it("reports is_superuser as the token is treated: false for a superuser's scoped token", async () => {
    const narrow = await scopedToken("root", { admin_permissions: ["manage_blackouts"] });
    expect(await typedClient(t, narrow).call(userInfo)).toMatchObject({
      authenticated: true,
      username: "root",
      is_superuser: false,
    });
    expect(await typedClient(t, root.token).call(userInfo)).toMatchObject({ is_superuser: true });
  });
});
