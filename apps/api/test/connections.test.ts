import {
  createConnection,
  getConnection,
  getConnectionContext,
  getCurrentConnection,
  listConnectionDatabases,
  listConnections,
  queryConnection,
  setCurrentConnection,
  updateConnection,
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

/** The test server itself stands in for a monitored server. */
function serverOf(t: TestApp) {
  const url = new URL(t.database.url);
  return {
    host: url.hostname,
    port: Number(url.port),
    database_name: t.database.name,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password) || "unused-with-trust-auth",
  };
}

describe("connections", () => {
  let t: TestApp;
  let root: TestUser;
  let manager: TestUser;
  let plain: TestUser;

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    manager = await createUser(t, "manager", { permissions: ["manage_connections"] });
    plain = await createUser(t, "plain");
  });
  afterAll(() => t.close());

  /** A refused creation: the raw response, for bodies the typed client would not send. */
  const create = (token: string, body: Record<string, unknown>) =>
    requestJson(t.app, "/api/v1/connections", { method: "POST", token, body });
  /** Registers the test server as the connection `name` (`is_shared` and such in `extra`). */
  const register = (
    user: TestUser,
    name: string,
    extra: { description?: string; is_shared?: boolean } = {},
  ) => typedClient(t, user.token).call(createConnection, { body: { ...serverOf(t), name, ...extra } });

  it("creates a connection and never shows its password", async () => {
    const body = await register(manager, "primary", { description: "main db" });
    expect(Object.keys(body).sort()).toEqual(
      [
        "id",
        "name",
        "description",
        "host",
        "hostaddr",
        "port",
        "database_name",
        "username",
        "ssl_mode",
        "ssl_cert_path",
        "ssl_key_path",
        "ssl_root_cert_path",
        "is_monitored",
        "is_shared",
        "owner_username",
        "cluster_id",
        "membership_source",
        "connection_error",
        "created_at",
        "updated_at",
      ].sort(),
    );
    expect(body).toMatchObject({
      name: "primary",
      description: "main db",
      host: serverOf(t).host,
      port: serverOf(t).port,
      ssl_mode: "prefer",
      is_monitored: true,
      is_shared: false,
      owner_username: "manager",
      cluster_id: null,
      membership_source: "auto",
      connection_error: null,
    });
    expect(JSON.stringify(body)).not.toContain("password");
    const [stored] = await t.datastore.sql`select password_encrypted from connections where id = ${body.id}`;
    expect(stored?.password_encrypted).toMatch(/^v1:/);
    expect(stored?.password_encrypted).not.toContain(serverOf(t).password);
  });

  it.each([
    [{ name: "" }, "Name is required"],
    [{ host: undefined }, "Host is required"],
    [{ port: 0 }, "Port is required and must be positive"],
    [{ database_name: " " }, "Maintenance Database is required"],
    [{ username: undefined }, "Username is required"],
    [{ password: "" }, "Password is required"],
    [{ host: "169.254.169.254" }, "Invalid host"],
    [{ host: "metadata.google.internal" }, "Invalid host"],
    [{ hostaddr: "fe80::1" }, "Invalid host"],
    [{ port: 22 }, "Invalid port"],
    [{ port: 6379 }, "Invalid port"],
    [{ ssl_mode: "sometimes" }, "Invalid ssl_mode"],
  ])("refuses %o with 400 %s", async (change, message) => {
    const res = await create(manager.token, { ...serverOf(t), name: "x", ...change });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: message });
  });

  it("refuses creation without manage_connections, even with a bad body", async () => {
    const res = await create(plain.token, { name: "" });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "Permission denied: requires manage_connections permission" });
    expect((await requestJson(t.app, "/api/v1/connections", { method: "POST", body: {} })).status).toBe(401);
  });

  it("lists only what a caller may see, ordered by name", async () => {
    const shared = await register(manager, "analytics", { is_shared: true });
    const names = async (user: TestUser) =>
      (await typedClient(t, user.token).call(listConnections)).map((c) => c.name);
    expect(await names(root)).toEqual(["analytics", "primary"]);
    expect(await names(manager)).toEqual(["analytics", "primary"]);
    expect(await names(plain)).toEqual(["analytics"]);
    expect((await requestJson(t.app, "/api/v1/connections")).status).toBe(401);
    expect(shared.id).toBeGreaterThan(0);
  });

  it("gets a connection: 400 for a bad id, 404 unknown, 403 without access", async () => {
    const [primary] = await t.datastore.sql`select id from connections where name = 'primary'`;
    expect(
      await typedClient(t, root.token).call(getConnection, { params: { id: primary?.id } }),
    ).toMatchObject({ name: "primary" });
    const bad = await requestJson(t.app, "/api/v1/connections/abc", { token: root.token });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Invalid connection ID" });
    const unknown = await requestJson(t.app, "/api/v1/connections/9999", { token: plain.token });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "Connection not found" });
    const hidden = await requestJson(t.app, `/api/v1/connections/${primary?.id}`, { token: plain.token });
    expect(hidden.status).toBe(403);
    expect(await hidden.json()).toEqual({
      error: "Permission denied: you do not have access to this connection",
    });
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const res = await requestJson(t.app, "/api/v1/connections/1", { method: "PATCH", token: root.token });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("DELETE, GET, HEAD, PUT");
  });

  it("updates: owner or manage_connections, partial, re-encrypts the password, clears the error", async () => {
    const owner = await createUser(t, "owner", { permissions: ["manage_connections"] });
    const { id } = await register(owner, "owned");
    await t.datastore
      .sql`update connections set connection_error = 'connection refused', owner_username = 'plain' where id = ${id}`;
    const [before] = await t.datastore.sql`select password_encrypted from connections where id = ${id}`;

    const updated = await typedClient(t, plain.token).call(updateConnection, {
      params: { id },
      body: { description: "renamed by its owner", password: "another-secret" },
    });
    expect(updated).toMatchObject({
      description: "renamed by its owner",
      connection_error: null,
      name: "owned",
    });
    const [after] = await t.datastore.sql`select password_encrypted from connections where id = ${id}`;
    expect(after?.password_encrypted).not.toBe(before?.password_encrypted);

    const share = await requestJson(t.app, `/api/v1/connections/${id}`, {
      method: "PUT",
      token: plain.token,
      body: { is_shared: true },
    });
    expect(share.status).toBe(403);
    expect(await share.json()).toEqual({
      error: "Permission denied: you do not have permission to make connections shared",
    });
    const empty = await requestJson(t.app, `/api/v1/connections/${id}`, {
      method: "PUT",
      token: plain.token,
      body: { name: "" },
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "Name cannot be empty" });

    const stranger = await createUser(t, "stranger");
    await t.datastore.sql`update connections set is_shared = true where id = ${id}`;
    const refused = await requestJson(t.app, `/api/v1/connections/${id}`, {
      method: "PUT",
      token: stranger.token,
      body: { description: "mine now" },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error:
        "Permission denied: you must be the owner or have the manage_connections permission to update this connection",
    });
    const missing = await requestJson(t.app, "/api/v1/connections/9999", {
      method: "PUT",
      token: root.token,
      body: { description: "x" },
    });
    expect(missing.status).toBe(404);
  });

  it("deletes: 204, then 404", async () => {
    const { id } = await register(manager, "doomed");
    const refused = await requestJson(t.app, `/api/v1/connections/${id}`, {
      method: "DELETE",
      token: plain.token,
    });
    expect(refused.status).toBe(403);
    const res = await requestJson(t.app, `/api/v1/connections/${id}`, {
      method: "DELETE",
      token: manager.token,
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    const again = await requestJson(t.app, `/api/v1/connections/${id}`, {
      method: "DELETE",
      token: manager.token,
    });
    expect(again.status).toBe(404);
  });

  it("lists the databases of the monitored server live", async () => {
    const [primary] = await t.datastore.sql`select id from connections where name = 'primary'`;
    const databases = await typedClient(t, root.token).call(listConnectionDatabases, {
      params: { id: primary?.id },
    });
    const mine = databases.find((database) => database.name === t.database.name);
    expect(mine).toMatchObject({ encoding: "UTF8", tablespace: "pg_default" });
    expect(mine?.size).toMatch(/^\d+ (bytes|kB|MB|GB)$/);
    expect(databases.map((database) => database.name)).not.toContain("template0");
    expect(databases.map((database) => database.name)).not.toContain("template1");
  });

  it("keeps the current connection per credential", async () => {
    const [primary] = await t.datastore.sql`select id, host, port from connections where name = 'primary'`;
    const path = "/api/v1/connections/current";
    const none = await requestJson(t.app, path, { token: root.token });
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ error: "No database connection selected" });
    const zero = await requestJson(t.app, path, {
      method: "POST",
      token: root.token,
      body: { connection_id: 0 },
    });
    expect(zero.status).toBe(400);
    expect(await zero.json()).toEqual({ error: "connection_id is required" });
    const unknown = await requestJson(t.app, path, {
      method: "POST",
      token: root.token,
      body: { connection_id: 9999 },
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: "Connection not found" });
    const hidden = await requestJson(t.app, path, {
      method: "POST",
      token: plain.token,
      body: { connection_id: primary?.id },
    });
    expect(hidden.status).toBe(403);
    expect(await hidden.json()).toEqual({ error: "Access denied" });

    const api = typedClient(t, root.token);
    const set = await api.call(setCurrentConnection, {
      body: { connection_id: primary?.id, database_name: "postgres" },
    });
    const expected = {
      connection_id: primary?.id,
      database_name: "postgres",
      host: primary?.host,
      port: primary?.port,
      name: "primary",
    };
    expect(set).toEqual(expected);
    expect(await api.call(getCurrentConnection)).toEqual(expected);

    const otherSession = await login(t, "root");
    expect((await requestJson(t.app, path, { token: otherSession })).status).toBe(404);

    expect((await requestJson(t.app, path, { method: "DELETE", token: root.token })).status).toBe(204);
    expect((await requestJson(t.app, path, { token: root.token })).status).toBe(404);
  });

  it("runs queries: read-only by default, writes only when confirmed and allowed", async () => {
    const [primary] = await t.datastore.sql`select id from connections where name = 'primary'`;
    const path = `/api/v1/connections/${primary?.id}/query`;
    const api = typedClient(t, root.token);
    const params = { id: primary?.id };
    const confirm = await api.call(queryConnection, { params, body: { query: "DELETE FROM t" } });
    expect(confirm).toEqual({
      requires_confirmation: true,
      write_statements: ["DELETE FROM t"],
      confirmation_message:
        "This request contains 1 write statement(s) that will modify the database. Please confirm to proceed.",
    });
    const run = (await api.call(queryConnection, {
      params,
      body: { query: "SELECT 1 AS a; SELECT ';' AS b; SELECT $$a;b$$ AS c" },
    })) as { total_statements: number; results: { rows: string[][] }[] };
    expect(run.total_statements).toBe(3);
    expect(run.results.map((result) => result.rows)).toEqual([[["1"]], [[";"]], [["a;b"]]]);
    const empty = await requestJson(t.app, path, {
      method: "POST",
      token: root.token,
      body: { query: "-- only comment" },
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "Query is required" });

    const reader = await createUser(t, "reader");
    const group = await t.services.auth.groups.create("readers", "");
    await t.services.auth.groups.setConnectionGrants(group.id, [
      { connectionId: primary?.id, accessLevel: "read" },
    ]);
    await t.services.auth.groups.addMember(group.id, { userId: reader.id });
    const write = await requestJson(t.app, path, {
      method: "POST",
      token: reader.token,
      body: { query: "CREATE TABLE nope (a int)", confirmed: true },
    });
    expect(write.status).toBe(403);
    expect(await write.json()).toEqual({
      error: "Permission denied: you do not have write access to this connection",
    });

    await api.call(queryConnection, {
      params,
      body: {
        query: "CREATE TABLE written_by_api (a int); INSERT INTO written_by_api VALUES (1)",
        confirmed: true,
      },
    });
    expect((await t.datastore.sql`select count(*)::int as n from written_by_api`)[0]?.n).toBe(1);
  });

  it("treats a call of a function off the read-only list as a write, and refuses transaction control and COPY", async () => {
    const [primary] = await t.datastore.sql`select id from connections where name = 'primary'`;
    const res = await typedClient(t, root.token).call(queryConnection, {
      params: { id: primary?.id },
      body: { query: "SELECT pg_terminate_backend(pg_backend_pid())" },
    });
    expect(res).toEqual({
      requires_confirmation: true,
      write_statements: ["SELECT pg_terminate_backend(pg_backend_pid())"],
      confirmation_message:
        "This request contains 1 write statement(s) that will modify the database. Please confirm to proceed.",
    });
    for (const [query, error] of [
      [
        "show search_path --\r; commit; copy (select 1) to program 'id'",
        "Refused: transaction control (COMMIT): each request runs in one transaction of its own",
      ],
      [
        "select 1; copy (select 1) to program 'id'",
        "Refused: COPY: dbmon runs no COPY (it reads or writes server files, programs or a client stream)",
      ],
    ]) {
      const refused = await requestJson(t.app, `/api/v1/connections/${primary?.id}/query`, {
        method: "POST",
        token: root.token,
        body: { query, confirmed: true },
      });
      expect(refused.status, query).toBe(400);
      expect(await refused.json(), query).toEqual({ error });
    }
  });

  it("answers a syntax error as the server would, without sending anything", async () => {
    const [primary] = await t.datastore.sql`select id from connections where name = 'primary'`;
    const res = await typedClient(t, root.token).call(queryConnection, {
      params: { id: primary?.id },
      body: { query: "select 1; select from where" },
    });
    expect(res).toEqual({
      results: [
        {
          query: "select 1; select from where",
          columns: [],
          rows: [],
          row_count: 0,
          truncated: false,
          error: 'Query error: Syntax error: syntax error at or near "where" (at character 23)',
        },
      ],
      total_statements: 1,
    });
  });

  it("refuses ad-hoc queries and sharing on dbmon's own datastore connection", async () => {
    const [local] = await t.datastore.sql`
      insert into connections (name, host, port, database_name, username, is_local, sslmode)
      values ('local', '127.0.0.1', 5432, 'postgres', 'dbmon_monitor', true, 'disable') returning id`;
    const query = await requestJson(t.app, `/api/v1/connections/${local?.id}/query`, {
      method: "POST",
      token: root.token,
      body: { query: "SELECT 1" },
    });
    expect(query.status).toBe(403);
    expect(await query.json()).toEqual({
      error: "Ad-hoc queries are not allowed on dbmon's own datastore connection",
    });
    const share = await requestJson(t.app, `/api/v1/connections/${local?.id}`, {
      method: "PUT",
      token: root.token,
      body: { is_shared: true },
    });
    expect(share.status).toBe(400);
    expect(await share.json()).toEqual({ error: "dbmon's own datastore connection cannot be shared" });
    const [row] = await t.datastore.sql`select is_shared from connections where id = ${local?.id as number}`;
    expect(row?.is_shared).toBe(false);
    await t.datastore.sql`delete from connections where id = ${local?.id as number}`;
  });

  it("leaves a deleted user's connections to no one: a new user of that name inherits nothing", async () => {
    const leaver = await createUser(t, "leaver", { permissions: ["manage_connections"] });
    const { id } = await register(leaver, "left-behind");
    expect(await t.services.auth.users.delete(leaver.id)).toBe(true);

    const seen = await typedClient(t, root.token).call(getConnection, { params: { id } });
    expect(seen.owner_username).toBeNull();
    const successor = await createUser(t, "leaver");
    expect((await requestJson(t.app, `/api/v1/connections/${id}`, { token: successor.token })).status).toBe(
      403,
    );
    const update = await requestJson(t.app, `/api/v1/connections/${id}`, {
      method: "PUT",
      token: successor.token,
      body: { description: "mine now?" },
    });
    expect(update.status).toBe(403);
  });

  it("describes a connection's context from collected data, empty before any collection", async () => {
    const [primary] = await t.datastore.sql`select id from connections where name = 'primary'`;
    const context = await typedClient(t, root.token).call(getConnectionContext, {
      params: { id: primary?.id },
    });
    expect(context).toEqual({
      connection_id: primary?.id,
      server_name: "primary",
      postgresql: {
        version: null,
        version_num: null,
        max_connections: null,
        data_directory: null,
        installed_extensions: [],
        settings: {},
      },
      system: {
        os_name: null,
        os_version: null,
        architecture: null,
        hostname: null,
        cpu: { model: null, cores: null, logical_processors: null, clock_speed_hz: null },
        memory: { total_bytes: null, free_bytes: null },
        disks: [],
      },
    });
  });
});
