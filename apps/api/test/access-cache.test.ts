import {
  addGroupMember,
  createGroup,
  createToken,
  deleteConnection,
  deleteToken,
  grantGroupConnectionPrivilege,
  logout,
  revokeGroupConnectionPrivilege,
  updateUser,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  buildTestApp,
  createUser,
  login,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

// Who may do what is kept in memory (AccessCache): these tests show that no change is ever missed.

let t: TestApp;
let other: TestApp;
let admin: TestUser;
let connectionId: number;

const status = async (app: TestApp, path: string, token: string) =>
  (await requestJson(app.app, path, { token })).status;

beforeAll(async () => {
  t = await buildTestApp();
  // A second API process on the same datastore, with its own cache.
  other = await buildTestApp({ database: t.database });
  admin = await createUser(t, "root", { superuser: true });
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_shared)
    values ('orders', '127.0.0.1', 5432, 'postgres', 'postgres', 'root', false) returning id`;
  connectionId = (row as { id: number }).id;
});

afterAll(async () => {
  await other.close();
  await t.close();
});

describe("changes made through the API", () => {
  it("apply to the very next request: disabling a user ends its sessions and tokens", async () => {
    const user = await createUser(t, "dora");
    expect(await status(t, "/api/v1/capabilities", user.token)).toBe(200);
    await typedClient(t, admin.token).call(updateUser, { params: { id: user.id }, body: { enabled: false } });
    expect(await status(t, "/api/v1/capabilities", user.token)).toBe(401);
  });

  it("apply to the very next request: a revoked token and a logged-out session stand for nobody", async () => {
    const user = await createUser(t, "erin");
    const api = typedClient(t, admin.token);
    const token = await api.call(createToken, { body: { owner_username: "erin", annotation: "ci" } });
    expect(await status(t, "/api/v1/capabilities", token.token)).toBe(200);
    await api.call(deleteToken, { params: { id: token.id } });
    expect(await status(t, "/api/v1/capabilities", token.token)).toBe(401);

    expect(await status(t, "/api/v1/capabilities", user.token)).toBe(200);
    await typedClient(t, user.token).call(logout);
    expect(await status(t, "/api/v1/capabilities", user.token)).toBe(401);
  });

  it("apply to the very next request: granting and revoking a group's access to a connection", async () => {
    const user = await createUser(t, "fred");
    const path = `/api/v1/server-info/${connectionId}`;
    expect(await status(t, path, user.token)).toBe(403);
    const api = typedClient(t, admin.token);
    const group = await api.call(createGroup, { body: { name: "readers" } });
    await api.call(addGroupMember, { params: { id: group.id }, body: { user_id: user.id } });
    await api.call(grantGroupConnectionPrivilege, {
      params: { id: group.id },
      body: { connection_id: connectionId, access_level: "read" },
    });
    expect(await status(t, path, user.token)).toBe(200);
    await api.call(revokeGroupConnectionPrivilege, { params: { id: group.id, connectionId } });
    expect(await status(t, path, user.token)).toBe(403);
  });

  it("apply to the very next request: a deleted connection is not found", async () => {
    const [row] = await t.datastore.sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username)
      values ('doomed', '127.0.0.1', 5432, 'postgres', 'postgres', 'root') returning id`;
    const id = (row as { id: number }).id;
    await expect.poll(() => status(t, `/api/v1/server-info/${id}`, admin.token)).toBe(200);
    await typedClient(t, admin.token).call(deleteConnection, { params: { id } });
    expect(await status(t, `/api/v1/server-info/${id}`, admin.token)).toBe(404);
  });
});

describe("changes made elsewhere", () => {
  it("reach another API process on the same datastore", async () => {
    const user = await createUser(t, "gina");
    expect(await status(other, "/api/v1/capabilities", user.token)).toBe(200);
    await typedClient(t, admin.token).call(updateUser, { params: { id: user.id }, body: { enabled: false } });
    await expect.poll(() => status(other, "/api/v1/capabilities", user.token)).toBe(401);
  });

  it("reach the API when written straight to the datastore", async () => {
    const user = await createUser(t, "hank");
    const path = `/api/v1/server-info/${connectionId}`;
    expect(await status(t, path, user.token)).toBe(403);
    await t.datastore.sql`update connections set is_shared = true where id = ${connectionId}`;
    await expect.poll(() => status(t, path, user.token)).toBe(200);
    await t.datastore.sql`update connections set is_shared = false where id = ${connectionId}`;
    await expect.poll(() => status(t, path, user.token)).toBe(403);
    await t.datastore.sql`delete from sessions where user_id = ${user.id}`;
    await expect.poll(() => status(t, "/api/v1/capabilities", user.token)).toBe(401);
  });
});

describe("the datastore", () => {
  it("announces changes to every table access facts are read from", async () => {
    const rows = await t.datastore.sql<{ table: string }[]>`
      select distinct c.relname::text as table from pg_trigger g join pg_class c on c.oid = g.tgrelid
      join pg_proc p on p.oid = g.tgfoid where p.proname = 'dbmon_notify_access_change' order by 1`;
    expect(rows.map((row) => row.table)).toEqual([
      "connections",
      "group_admin_permissions",
      "group_connection_privileges",
      "group_mcp_privileges",
      "group_memberships",
      "mcp_privilege_identifiers",
      "rbac_groups",
      "service_tokens",
      "sessions",
      "token_admin_scopes",
      "token_connection_scopes",
      "token_mcp_scopes",
      "users",
    ]);
  });
});

describe("what is kept", () => {
  it("nothing for unknown tokens, however many are tried", async () => {
    const before = t.services.auth.cache.credentials.size;
    for (let i = 0; i < 50; i++) {
      expect(await status(t, "/api/v1/capabilities", `unknown-token-${i}`)).toBe(401);
    }
    expect(t.services.auth.cache.credentials.size).toBe(before);
  });

  it("everything, whatever refused writes anonymous callers send (they cannot keep the cache empty)", async () => {
    expect(await status(t, "/api/v1/capabilities", admin.token)).toBe(200);
    const kept = t.services.auth.cache.credentials.size;
    expect(kept).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) {
      const refused = await requestJson(t.app, "/api/v1/rbac/groups", {
        method: "POST",
        body: { name: `g${i}` },
      });
      expect(refused.status).toBe(401);
    }
    const badLogin = await requestJson(t.app, "/api/v1/auth/login", {
      method: "POST",
      body: { username: "root", password: "not-the-password" },
    });
    expect(badLogin.status).toBe(401);
    // Had the bad login announced an access change, the notification would have arrived by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(t.services.auth.cache.credentials.size).toBe(kept);
  });
});

describe("a logout that ends no session", () => {
  it("neither notifies other processes nor clears this one's cache; a real logout does both", async () => {
    const notified: string[] = [];
    const listening = await t.datastore.sql.listen("dbmon_access", (table) => notified.push(table));
    const cleared = vi.spyOn(t.services.auth.cache, "clear");
    try {
      expect(await status(t, "/api/v1/capabilities", admin.token)).toBe(200);
      const kept = t.services.auth.cache.credentials.size;
      const logouts: Record<string, string>[] = [
        {},
        { authorization: "Bearer not-a-session-token" },
        { cookie: "session_token=not-a-session-either" },
      ];
      for (const headers of logouts) {
        const res = await requestJson(t.app, "/api/v1/auth/logout", { method: "POST", headers });
        expect(res.status).toBe(200);
      }
      // A notification sent by the logouts would have arrived by now.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(notified).toEqual([]);
      expect(cleared).not.toHaveBeenCalled();
      expect(t.services.auth.cache.credentials.size).toBe(kept);

      await typedClient(t, await login(t, "root")).call(logout);
      expect(cleared).toHaveBeenCalled();
      await expect.poll(() => notified).toContain("sessions");
    } finally {
      cleared.mockRestore();
      await listening.unlisten();
    }
  });
});
