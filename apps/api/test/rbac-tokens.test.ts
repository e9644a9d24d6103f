import {
  clearTokenScope,
  createToken,
  deleteToken,
  getTokenScope,
  listMcpPrivileges,
  listTokens,
  setTokenScope,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InputOf } from "./contract-types.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

const WARNING = "Token created. Save this token securely - it will not be shown again.";

describe("RBAC tokens", () => {
  let t: TestApp;
  let root: TestUser;
  let tokenAdmin: TestUser;
  let plain: TestUser;
  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    tokenAdmin = await createUser(t, "tokenadmin", { permissions: ["manage_token_scopes"] });
    plain = await createUser(t, "plain");
  });
  afterAll(() => t.close());

  const call = (method: string, path: string, token: string, body?: unknown) =>
    requestJson(t.app, `/api/v1/rbac${path}`, { method, token, body });
  const issue = (body: InputOf<typeof createToken>["body"], user = tokenAdmin) =>
    typedClient(t, user.token).call(createToken, { body });

  it("creates a token that works as a Bearer credential, shown only once", async () => {
    const before = Date.now();
    const body = await issue({ owner_username: "plain", annotation: "ci", expires_in: "30d" });
    expect(body).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}=$/),
      id: expect.any(Number),
      owner: "plain",
      annotation: "ci",
      expires_at: expect.any(String),
      message: WARNING,
    });
    const days = (Date.parse(body.expires_at ?? "") - before) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThan(30.01);
    const info = await requestJson(t.app, "/api/v1/user/info", { token: body.token });
    expect(await info.json()).toMatchObject({ authenticated: true, username: "plain" });
    const dump = JSON.stringify(await t.datastore.sql`select * from service_tokens`);
    expect(dump).not.toContain(body.token);
  });

  it("creates tokens without expiry and refuses bad lifetimes", async () => {
    expect(
      (await issue({ owner_username: "plain", annotation: "forever", expires_in: "never" })).expires_at,
    ).toBeNull();
    expect((await issue({ owner_username: "plain", annotation: "default" })).expires_at).toBeNull();
    expect(
      (await issue({ owner_username: "plain", annotation: "12h", expires_in: "12h" })).expires_at,
    ).not.toBeNull();
    for (const expires_in of ["0d", "3651d", "87601h", "5x", "x"]) {
      const res = await call("POST", "/tokens", tokenAdmin.token, {
        owner_username: "plain",
        annotation: "",
        expires_in,
      });
      expect(res.status, expires_in).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/^Invalid expires_in: /);
    }
    const noOwner = await call("POST", "/tokens", tokenAdmin.token, { annotation: "x" });
    expect(noOwner.status).toBe(400);
    expect(await noOwner.json()).toEqual({ error: "Owner username is required" });
    const unknown = await call("POST", "/tokens", tokenAdmin.token, { owner_username: "ghost" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "User not found" });
  });

  it("refuses disabled owners, and superuser owners unless the caller is a superuser", async () => {
    await t.services.auth.users.create({ username: "off", isServiceAccount: true, enabled: false });
    const disabled = await call("POST", "/tokens", tokenAdmin.token, { owner_username: "off" });
    expect(disabled.status).toBe(400);
    expect(await disabled.json()).toEqual({ error: "The token owner is disabled" });
    const escalation = await call("POST", "/tokens", tokenAdmin.token, { owner_username: "root" });
    expect(escalation.status).toBe(403);
    expect(await issue({ owner_username: "root", annotation: "su" }, root)).toMatchObject({ owner: "root" });
  });

  it("lists tokens newest first with owner details and scope", async () => {
    const created = await issue({ owner_username: "plain", annotation: "listed" });
    const { tokens } = await typedClient(t, tokenAdmin.token).call(listTokens);
    expect(tokens[0]).toEqual({
      id: created.id,
      name: "listed",
      token_prefix: expect.stringMatching(/^[0-9a-f]{12}$/),
      user_id: plain.id,
      username: "plain",
      is_service_account: false,
      is_superuser: false,
      expires_at: null,
      created_at: expect.any(String),
      scope: null,
    });
    expect((await call("GET", "/tokens", plain.token)).status).toBe(403);
    expect(await (await call("GET", "/tokens", plain.token)).json()).toEqual({
      error: "Permission denied: requires manage_token_scopes permission",
    });
  });

  it("gets, sets and clears a token scope", async () => {
    const { id } = await issue({ owner_username: "plain", annotation: "scoped" });
    const api = typedClient(t, tokenAdmin.token);
    const scope = () => api.call(getTokenScope, { params: { id } });
    expect(await scope()).toEqual({ token_id: id, scoped: false });
    await api.call(setTokenScope, {
      params: { id },
      body: {
        connections: [{ connection_id: 3, access_level: "read" }],
        admin_permissions: ["manage_blackouts"],
        mcp_privileges: ["query_database"],
      },
    });
    const items = await typedClient(t, root.token).call(listMcpPrivileges);
    const queryDatabase = items.find((item) => item.identifier === "query_database")?.id;
    expect(await scope()).toEqual({
      token_id: id,
      scoped: true,
      connections: [{ connection_id: 3, access_level: "read" }],
      mcp_privileges: [queryDatabase],
      admin_permissions: ["manage_blackouts"],
    });
    // A partial update leaves the other dimensions; the wildcard shows as id 0.
    await api.call(setTokenScope, { params: { id }, body: { mcp_privileges: ["*"] } });
    expect(await scope()).toMatchObject({
      mcp_privileges: [0],
      admin_permissions: ["manage_blackouts"],
    });
    const listed = await api.call(listTokens);
    expect(listed.tokens.find((token) => token.id === id)?.scope).toEqual({
      scoped: true,
      connections: [{ connection_id: 3, access_level: "read" }],
      mcp_privileges: [0],
      admin_permissions: ["manage_blackouts"],
    });
    await api.call(clearTokenScope, { params: { id } });
    expect(await scope()).toEqual({ token_id: id, scoped: false });
  });

  it("validates scopes", async () => {
    const { id } = await issue({ owner_username: "plain" });
    const level = await call("PUT", `/tokens/${id}/scope`, tokenAdmin.token, {
      connections: [{ connection_id: 3, access_level: "admin" }],
    });
    expect(level.status).toBe(400);
    expect(await level.json()).toEqual({ error: "access_level must be 'read' or 'read_write'" });
    const mcp = await call("PUT", `/tokens/${id}/scope`, tokenAdmin.token, { mcp_privileges: ["bogus"] });
    expect(await mcp.json()).toEqual({ error: "Unknown MCP privilege: bogus" });
    const perm = await call("PUT", `/tokens/${id}/scope`, tokenAdmin.token, { admin_permissions: ["bogus"] });
    expect(await perm.json()).toEqual({ error: "Invalid permission: bogus" });
    for (const method of ["GET", "PUT", "DELETE"]) {
      const res = await call(
        method,
        "/tokens/99999/scope",
        tokenAdmin.token,
        method === "PUT" ? {} : undefined,
      );
      expect(res.status, method).toBe(404);
      expect(await res.json()).toEqual({ error: "Token not found" });
    }
  });

  it("deletes tokens; a deleted token no longer authenticates", async () => {
    const { id, token } = await issue({ owner_username: "plain" });
    expect((await requestJson(t.app, "/api/v1/capabilities", { token })).status).toBe(200);
    await typedClient(t, tokenAdmin.token).call(deleteToken, { params: { id } });
    expect((await requestJson(t.app, "/api/v1/capabilities", { token })).status).toBe(401);
    const missing = await call("DELETE", "/tokens/99999", tokenAdmin.token);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "Token not found" });
    const bad = await call("DELETE", "/tokens/abc", plain.token);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Invalid token ID" });
  });
});
