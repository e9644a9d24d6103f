import { capabilities, login as loginOperation, logout, userInfo } from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../src/auth/secrets.js";
import {
  buildTestApp,
  createUser,
  expectMatchesContract,
  login,
  requestJson,
  TEST_PASSWORD,
  type TestApp,
  typedClient,
} from "./support.js";

const AUTH_FAILED = { error: "Authentication failed: invalid username or password" };
const MISSING = { error: "Missing or invalid authentication credentials" };
const INVALID = { error: "Invalid or unknown token" };

function postLogin(t: TestApp, body: unknown, headers: Record<string, string> = {}) {
  return requestJson(t.app, "/api/v1/auth/login", { method: "POST", body, headers });
}

/** A request from a given TCP peer, as @hono/node-server hands it to the app. */
function fromPeer(t: TestApp, path: string, init: RequestInit, address: string) {
  return t.app.request(path, init, { incoming: { socket: { remoteAddress: address } } });
}

describe("login", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.services.auth.users.create({ username: "alice", password: TEST_PASSWORD });
  });
  afterAll(() => t.close());

  it("answers the session token in the body and an HttpOnly SameSite=Lax cookie", async () => {
    const before = Date.now();
    const res = await postLogin(t, { username: "alice", password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expectMatchesContract(loginOperation, body, 200);
    expect(Object.keys(body).sort()).toEqual(["expires_at", "message", "session_token", "success"]);
    expect(body.success).toBe(true);
    expect(body.message).toBe("Authentication successful");
    expect(body.session_token).toMatch(/^[A-Za-z0-9_-]{43}=$/);
    const expires = Date.parse(body.expires_at as string);
    expect(expires - before).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(expires - before).toBeLessThan(24 * 3600_000 + 60_000);
    const cookie = res.headers.get("set-cookie") ?? "";
    // The padding `=` travels percent-encoded; every cookie parser decodes it.
    expect(cookie).toContain(`session_token=${encodeURIComponent(body.session_token as string)};`);
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure");
  });

  it("marks the cookie Secure over HTTPS", async () => {
    const viaProxy = await postLogin(
      t,
      { username: "alice", password: TEST_PASSWORD },
      { "x-forwarded-proto": "https" },
    );
    expect(viaProxy.headers.get("set-cookie")).toContain("Secure");
    const direct = await t.app.request("https://dbmon.example.com/api/v1/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "alice", password: TEST_PASSWORD }),
    });
    expect(direct.headers.get("set-cookie")).toContain("Secure");
  });

  it("answers wrong passwords and unknown users identically", async () => {
    const wrong = await postLogin(t, { username: "alice", password: "not-the-password" });
    const unknown = await postLogin(t, { username: "nobody", password: "not-the-password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(AUTH_FAILED);
    expect(await unknown.json()).toEqual(AUTH_FAILED);
  });

  it("validates the body", async () => {
    expect(await (await postLogin(t, { password: "x" })).json()).toEqual({ error: "Username is required" });
    expect(await (await postLogin(t, { username: "", password: "x" })).json()).toEqual({
      error: "Username is required",
    });
    const noPassword = await postLogin(t, { username: "alice" });
    expect(noPassword.status).toBe(400);
    expect(await noPassword.json()).toEqual({ error: "Password is required" });
    const garbage = await t.app.request("/api/v1/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "invalid json",
    });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toEqual({ error: "Invalid request body" });
  });

  it("answers GET with 405", async () => {
    const res = await requestJson(t.app, "/api/v1/auth/login");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("refuses service accounts and disabled users with the same message", async () => {
    await t.services.auth.users.create({ username: "robot", isServiceAccount: true });
    await t.services.auth.users.create({ username: "carol", password: TEST_PASSWORD, enabled: false });
    for (const username of ["robot", "carol"]) {
      const res = await postLogin(t, { username, password: TEST_PASSWORD });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(AUTH_FAILED);
    }
  });

  it("keeps neither raw tokens nor passwords in the datastore or the logs", async () => {
    const token = await login(t, "alice");
    const dump = JSON.stringify(
      await t.datastore
        .sql`select (select json_agg(u) from users u) as users, (select json_agg(s) from sessions s) as sessions`,
    );
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(TEST_PASSWORD);
    expect(dump).toContain(hashToken(token));
    expect(dump).toContain("$argon2id$");
    const logs = JSON.stringify(t.logs);
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(TEST_PASSWORD);
  });
});

// Dozens of logins, each an Argon2 check: generous on a busy two-core machine.
describe("login throttling and lockout", { timeout: 30_000 }, () => {
  it("refuses the 21st login request of a minute from one address", async () => {
    const t = await buildTestApp({
      config: { loginThrottle: { requestsPerMinute: 20, maxFailedAttempts: 100, failureWindowMs: 900_000 } },
    });
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "x", password: "y" }),
    };
    for (let i = 0; i < 20; i++) {
      expect((await fromPeer(t, "/api/v1/auth/login", init, "10.0.0.7")).status).toBe(401);
    }
    const refused = await fromPeer(t, "/api/v1/auth/login", init, "10.0.0.7");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "Too many login requests, please try again later" });
    // Another address is counted apart.
    expect((await fromPeer(t, "/api/v1/auth/login", init, "10.0.0.8")).status).toBe(401);
    await t.close();
  });

  it("refuses after the failures of the window, even with the right password, and forgets after it", async () => {
    let now = Date.parse("2026-11-22T10:00:00Z");
    const t = await buildTestApp({
      clock: { now: () => new Date(now) },
      config: {
        loginThrottle: { requestsPerMinute: 1000, maxFailedAttempts: 2, failureWindowMs: 15 * 60_000 },
      },
    });
    await t.services.auth.users.create({ username: "alice", password: TEST_PASSWORD });
    expect((await postLogin(t, { username: "alice", password: "wrong-password-1" })).status).toBe(401);
    expect((await postLogin(t, { username: "alice", password: "wrong-password-2" })).status).toBe(401);
    const refused = await postLogin(t, { username: "alice", password: TEST_PASSWORD });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: "Too many failed authentication attempts, please try again later",
    });
    now += 15 * 60_000 + 1;
    expect((await postLogin(t, { username: "alice", password: TEST_PASSWORD })).status).toBe(200);
    await t.close();
  });

  it("shares the counters between API instances on one datastore", async () => {
    const limits = { requestsPerMinute: 1000, maxFailedAttempts: 2, failureWindowMs: 60_000 };
    const first = await buildTestApp({ config: { loginThrottle: limits } });
    const second = await buildTestApp({ database: first.database, config: { loginThrottle: limits } });
    await postLogin(first, { username: "x", password: "wrong-password-1" });
    await postLogin(second, { username: "x", password: "wrong-password-2" });
    expect((await postLogin(first, { username: "x", password: "wrong-password-3" })).status).toBe(429);
    await second.close();
    await first.close();
  });

  it("uses X-Forwarded-For only from trusted proxies", async () => {
    const t = await buildTestApp({
      config: {
        trustedProxies: ["127.0.0.1"],
        loginThrottle: { requestsPerMinute: 1000, maxFailedAttempts: 1, failureWindowMs: 60_000 },
      },
    });
    const init = (forwarded: string) => ({
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": forwarded },
      body: JSON.stringify({ username: "x", password: "wrong-password" }),
    });
    // Behind the trusted proxy, each forwarded client has its own budget.
    expect((await fromPeer(t, "/api/v1/auth/login", init("203.0.113.1"), "127.0.0.1")).status).toBe(401);
    expect((await fromPeer(t, "/api/v1/auth/login", init("203.0.113.2"), "127.0.0.1")).status).toBe(401);
    expect((await fromPeer(t, "/api/v1/auth/login", init("203.0.113.1"), "127.0.0.1")).status).toBe(429);
    // An untrusted peer cannot pick its address by sending the header.
    expect((await fromPeer(t, "/api/v1/auth/login", init("203.0.113.9"), "198.51.100.5")).status).toBe(401);
    expect((await fromPeer(t, "/api/v1/auth/login", init("203.0.113.10"), "198.51.100.5")).status).toBe(429);
    await t.close();
  });

  it("counts an IPv6 client by its /64: a subscriber cannot spread attempts over its own addresses", async () => {
    const t = await buildTestApp({
      config: { loginThrottle: { requestsPerMinute: 1000, maxFailedAttempts: 1, failureWindowMs: 60_000 } },
    });
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "x", password: "wrong-password" }),
    };
    const status = async (peer: string) => (await fromPeer(t, "/api/v1/auth/login", init, peer)).status;
    expect(await status("2001:db8:1:2::1")).toBe(401);
    // The same /64 in other spellings: another interface id, zeros written out, upper case.
    expect(await status("2001:db8:1:2:ffff:ffff:ffff:fffe")).toBe(429);
    expect(await status("2001:0DB8:0001:0002:0:0:0:9")).toBe(429);
    // The next /64 and an IPv4 client have budgets of their own.
    expect(await status("2001:db8:1:3::1")).toBe(401);
    expect(await status("203.0.113.7")).toBe(401);
    await t.close();
  });

  it("locks an account out after the configured failures and ends its sessions", async () => {
    const t = await buildTestApp({
      config: {
        lockoutAfterFailedAttempts: 3,
        loginThrottle: { requestsPerMinute: 1000, maxFailedAttempts: 1000, failureWindowMs: 60_000 },
      },
    });
    const alice = await createUser(t, "alice");
    for (let i = 0; i < 3; i++) {
      expect((await postLogin(t, { username: "alice", password: "wrong-password" })).status).toBe(401);
    }
    const correct = await postLogin(t, { username: "alice", password: TEST_PASSWORD });
    expect(correct.status).toBe(401);
    expect(await correct.json()).toEqual(AUTH_FAILED);
    expect((await requestJson(t.app, "/api/v1/capabilities", { token: alice.token })).status).toBe(401);
    // Re-enabling lets the user in again.
    await t.services.auth.users.update(alice.id, { enabled: true });
    expect((await postLogin(t, { username: "alice", password: TEST_PASSWORD })).status).toBe(200);
    await t.close();
  });
});

describe("credentials on protected routes", { timeout: 30_000 }, () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    t = await buildTestApp();
    alice = await createUser(t, "alice");
  });
  afterAll(() => t.close());

  it("answers 401 without credentials", async () => {
    const res = await requestJson(t.app, "/api/v1/capabilities");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(MISSING);
  });

  it("treats a malformed Authorization header as no credential, even beside a valid cookie", async () => {
    for (const authorization of ["Basic abc", "Bearer", "Bearer ", alice.token, `bearer ${alice.token}`]) {
      const res = await t.app.request("/api/v1/capabilities", {
        headers: { authorization, cookie: `session_token=${alice.token}` },
      });
      expect(res.status, authorization).toBe(401);
      expect(await res.json()).toEqual(MISSING);
    }
  });

  it("answers 401 for an unknown token", async () => {
    const res = await requestJson(t.app, "/api/v1/capabilities", { token: "invalid-token-12345" });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(INVALID);
  });

  it("accepts the session as Bearer token and as cookie; an empty cookie is no credential", async () => {
    expect((await requestJson(t.app, "/api/v1/capabilities", { token: alice.token })).status).toBe(200);
    const cookie = await t.app.request("/api/v1/capabilities", {
      headers: { cookie: `session_token=${alice.token}` },
    });
    expect(cookie.status).toBe(200);
    const empty = await t.app.request("/api/v1/capabilities", { headers: { cookie: "session_token=" } });
    expect(empty.status).toBe(401);
  });

  it("refuses expired sessions and expired or revoked service tokens", async () => {
    let now = Date.now();
    const clocked = await buildTestApp({ database: t.database, clock: { now: () => new Date(now) } });
    const session = await login(clocked, "alice");
    const owner = await clocked.services.auth.users.byUsername("alice");
    const expiring = await clocked.services.auth.credentials.issueServiceToken(
      owner as NonNullable<typeof owner>,
      "ci",
      new Date(now + 3600_000),
    );
    const revoked = await clocked.services.auth.credentials.issueServiceToken(
      owner as NonNullable<typeof owner>,
      "",
      null,
    );
    expect((await requestJson(clocked.app, "/api/v1/capabilities", { token: revoked.token })).status).toBe(
      200,
    );
    await clocked.services.auth.credentials.revokeServiceToken(revoked.id);
    expect((await requestJson(clocked.app, "/api/v1/capabilities", { token: revoked.token })).status).toBe(
      401,
    );
    expect((await requestJson(clocked.app, "/api/v1/capabilities", { token: expiring.token })).status).toBe(
      200,
    );
    now += 3600_000;
    expect((await requestJson(clocked.app, "/api/v1/capabilities", { token: expiring.token })).status).toBe(
      401,
    );
    expect((await requestJson(clocked.app, "/api/v1/capabilities", { token: session })).status).toBe(200);
    now += 23 * 3600_000;
    expect((await requestJson(clocked.app, "/api/v1/capabilities", { token: session })).status).toBe(401);
    await clocked.close();
  });

  it("refuses the sessions and tokens of disabled users, and sessions after a password change", async () => {
    // Changed behind the API's back (as the command line does): the change reaches the API's
    // access cache by NOTIFY, so within moments rather than by the next request.
    const status = (token: string) => async () =>
      (await requestJson(t.app, "/api/v1/capabilities", { token })).status;
    const bob = await createUser(t, "bob");
    const token = await t.services.auth.credentials.issueServiceToken(
      (await t.services.auth.users.byId(bob.id)) as NonNullable<
        Awaited<ReturnType<typeof t.services.auth.users.byId>>
      >,
      "",
      null,
    );
    expect(await status(token.token)()).toBe(200);
    await t.services.auth.users.update(bob.id, { enabled: false });
    await expect.poll(status(bob.token)).toBe(401);
    await expect.poll(status(token.token)).toBe(401);
    await t.services.auth.users.update(bob.id, { enabled: true });
    await expect.poll(status(token.token)).toBe(200);
    const fresh = await login(t, "bob");
    expect(await status(fresh)()).toBe(200);
    await t.services.auth.users.update(bob.id, { password: "another-long-password-2" });
    await expect.poll(status(fresh)).toBe(401);
  });

  it("keeps at most 10 sessions per user", async () => {
    await t.services.auth.users.create({ username: "dave", password: TEST_PASSWORD });
    const tokens: string[] = [];
    for (let i = 0; i < 11; i++) {
      tokens.push(await login(t, "dave"));
    }
    const [row] = await t.datastore
      .sql`select count(*)::int as n from sessions s join users u on u.id = s.user_id where u.username = 'dave'`;
    expect(row?.n).toBe(10);
    expect((await requestJson(t.app, "/api/v1/capabilities", { token: tokens[10] })).status).toBe(200);
  });

  it("keeps sessions across a restart and on a second instance sharing the datastore", async () => {
    const second = await buildTestApp({ database: t.database });
    expect((await requestJson(second.app, "/api/v1/capabilities", { token: alice.token })).status).toBe(200);
    const made = await login(second, "alice");
    expect((await requestJson(t.app, "/api/v1/capabilities", { token: made })).status).toBe(200);
    await second.close();
    // A new app on the same datastore (a restart) still knows the session.
    const restarted = await buildTestApp({ database: t.database });
    expect((await requestJson(restarted.app, "/api/v1/capabilities", { token: made })).status).toBe(200);
    await restarted.close();
  });
});

describe("logout", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.services.auth.users.create({ username: "alice", password: TEST_PASSWORD });
  });
  afterAll(() => t.close());

  it("ends the cookie's session and clears the cookie", async () => {
    const token = await login(t, "alice");
    const res = await t.app.request("/api/v1/auth/logout", {
      method: "POST",
      headers: { cookie: `session_token=${token}` },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expectMatchesContract(logout, body, 200);
    expect(body).toEqual({ success: true, message: "Logged out successfully" });
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^session_token=;/);
    expect(cookie).toMatch(/Max-Age=0/);
    expect(cookie).toContain("HttpOnly");
    expect((await requestJson(t.app, "/api/v1/capabilities", { token })).status).toBe(401);
  });

  it("ends a Bearer session too, and answers 200 without any credential", async () => {
    const token = await login(t, "alice");
    await typedClient(t, token).call(logout);
    expect((await requestJson(t.app, "/api/v1/capabilities", { token })).status).toBe(401);
    expect(await typedClient(t).call(logout)).toEqual({ success: true, message: "Logged out successfully" });
    expect((await requestJson(t.app, "/api/v1/auth/logout")).status).toBe(405);
  });
});

describe("answers about credentials", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.services.auth.users.create({ username: "alice", password: TEST_PASSWORD, isSuperuser: true });
  });
  afterAll(() => t.close());

  it("are never stored by a browser or proxy: Cache-Control: no-store, refusals included", async () => {
    const answers: [string, Response][] = [];
    const loggedIn = await postLogin(t, { username: "alice", password: TEST_PASSWORD });
    answers.push(["login", loggedIn]);
    const token = ((await loggedIn.json()) as { session_token: string }).session_token;
    answers.push(["failed login", await postLogin(t, { username: "alice", password: "wrong password!" })]);
    answers.push(["invalid login", await postLogin(t, { username: 1 })]);
    answers.push(["user info", await requestJson(t.app, "/api/v1/user/info", { token })]);
    answers.push(["anonymous user info", await requestJson(t.app, "/api/v1/user/info")]);
    answers.push(["user info, HEAD", await t.app.request("/api/v1/user/info", { method: "HEAD" })]);
    answers.push([
      "token",
      await requestJson(t.app, "/api/v1/rbac/tokens", {
        method: "POST",
        token,
        body: { owner_username: "alice", annotation: "ci", expires_in: "1d" },
      }),
    ]);
    answers.push([
      "refused token",
      await requestJson(t.app, "/api/v1/rbac/tokens", { method: "POST", body: { owner_username: "alice" } }),
    ]);
    answers.push(["logout", await requestJson(t.app, "/api/v1/auth/logout", { method: "POST", token })]);
    expect(answers.map(([, res]) => res.status)).toEqual([200, 401, 400, 200, 200, 200, 201, 401, 200]);
    for (const [name, res] of answers) {
      expect(res.headers.get("cache-control"), name).toBe("no-store");
    }
  });
});

describe("cross-origin writes with the session cookie (CSRF)", () => {
  let t: TestApp;
  const REFUSED = {
    error:
      "Cross-origin request refused: a request authenticated by the session cookie must come from this server's origin",
  };
  beforeAll(async () => {
    t = await buildTestApp({ config: { corsOrigin: "https://ui.example.com" } });
    await t.services.auth.users.create({ username: "alice", password: TEST_PASSWORD });
  });
  afterAll(() => t.close());

  const alive = async (token: string) =>
    (await requestJson(t.app, "/api/v1/capabilities", { token })).status === 200;

  it("refuses a body-less cookie POST or DELETE from a foreign or opaque Origin, and changes nothing", async () => {
    const token = await login(t, "alice");
    for (const origin of [
      "https://evil.example.com",
      "null",
      "http://localhost.evil.example.com",
      "garbage",
    ]) {
      const res = await t.app.request("/api/v1/auth/logout", {
        method: "POST",
        headers: { cookie: `session_token=${token}`, origin },
      });
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toEqual(REFUSED);
    }
    const deleted = await t.app.request("/api/v1/memories/1", {
      method: "DELETE",
      headers: { cookie: `session_token=${token}`, origin: "https://evil.example.com" },
    });
    expect(deleted.status).toBe(403);
    expect(await alive(token)).toBe(true);
  });

  it("lets same-origin, configured-origin, Origin-less and Bearer requests through", async () => {
    const logoutWith = (headers: Record<string, string>) =>
      t.app.request("/api/v1/auth/logout", { method: "POST", headers });
    for (const headers of [
      (token: string) => ({ cookie: `session_token=${token}`, origin: "http://localhost" }),
      (token: string) => ({ cookie: `session_token=${token}`, origin: "https://ui.example.com" }),
      (token: string) => ({ cookie: `session_token=${token}` }),
      (token: string) => ({ authorization: `Bearer ${token}`, origin: "https://evil.example.com" }),
    ]) {
      const token = await login(t, "alice");
      const res = await logoutWith(headers(token));
      expect(res.status, JSON.stringify(headers("…"))).toBe(200);
      expect(await alive(token)).toBe(false);
    }
    // Reading with the cookie from anywhere is not a write.
    const token = await login(t, "alice");
    const read = await t.app.request("/api/v1/capabilities", {
      headers: { cookie: `session_token=${token}`, origin: "https://evil.example.com" },
    });
    expect(read.status).toBe(200);
  });
});

describe("user info and capabilities", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it("answers anonymous callers and garbage tokens with 200", async () => {
    expect(await typedClient(t).call(userInfo)).toEqual({ authenticated: false });
    expect(await typedClient(t, "garbage").call(userInfo)).toEqual({
      authenticated: false,
      error: "Invalid or expired session",
    });
  });

  it("describes a superuser and a user with group permissions", async () => {
    const root = await createUser(t, "root", { superuser: true });
    expect(await typedClient(t, root.token).call(userInfo)).toEqual({
      authenticated: true,
      username: "root",
      is_superuser: true,
      admin_permissions: [],
    });
    const ops = await createUser(t, "ops", { permissions: ["manage_blackouts"] });
    expect(await typedClient(t, ops.token).call(userInfo)).toEqual({
      authenticated: true,
      username: "ops",
      is_superuser: false,
      admin_permissions: ["manage_blackouts"],
    });
  });

  it("reports the capabilities to authenticated callers only", async () => {
    const user = await createUser(t, "plain");
    expect(await typedClient(t, user.token).call(capabilities)).toEqual({
      ai_enabled: false,
      max_iterations: 50,
    });
    expect(
      (await requestJson(t.app, "/api/v1/capabilities", { method: "POST", token: user.token })).status,
    ).toBe(405);
    expect((await requestJson(t.app, "/api/v1/capabilities")).status).toBe(401);
  });
});
