import { createUser as createUserOperation, getUserPrivileges, listUsers, updateUser } from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  createUser,
  login,
  requestJson,
  TEST_PASSWORD,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

describe("RBAC users", () => {
  let t: TestApp;
  let root: TestUser;
  let admin: TestUser;
  let plain: TestUser;
  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    admin = await createUser(t, "useradmin", { permissions: ["manage_users"] });
    plain = await createUser(t, "plain");
  });
  afterAll(() => t.close());

  const create = (token: string, body: unknown) =>
    requestJson(t.app, "/api/v1/rbac/users", { method: "POST", body, token });

  it("lists users ordered by username with the exact fields", async () => {
    const body = await typedClient(t, admin.token).call(listUsers);
    expect(body.users.map((u) => u.username)).toEqual(["plain", "root", "useradmin"]);
    expect(body.users[1]).toEqual({
      id: root.id,
      username: "root",
      display_name: "",
      email: "",
      annotation: "",
      enabled: true,
      is_superuser: true,
      is_service_account: false,
    });
  });

  it("refuses callers without manage_users with 403", async () => {
    const res = await requestJson(t.app, "/api/v1/rbac/users", { token: plain.token });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "Permission denied: requires manage_users permission" });
    expect((await create(plain.token, {})).status).toBe(403);
  });

  it("creates a user who can then log in", async () => {
    const api = typedClient(t, admin.token);
    const body = await api.call(createUserOperation, {
      body: {
        username: "erin",
        password: TEST_PASSWORD,
        display_name: "Erin",
        email: "erin@example.com",
        annotation: "on call",
      },
    });
    expect(body).toEqual({ message: "User created", id: expect.any(Number) });
    expect(await login(t, "erin")).toBeTruthy();
    const list = await api.call(listUsers);
    expect(list.users.find((u) => u.username === "erin")).toMatchObject({
      id: body.id,
      display_name: "Erin",
      email: "erin@example.com",
      annotation: "on call",
    });
  });

  it("applies the password policy", async () => {
    const short = await create(admin.token, { username: "u1", password: "abcdefghijk" });
    expect(short.status).toBe(400);
    expect(((await short.json()) as { error: string }).error).toMatch(
      /^Password does not meet length requirements: must be at least 12 characters/,
    );
    for (const password of ["UnBelievable", "  unbelievable  ", "password1234"]) {
      const res = await create(admin.token, { username: "u2", password });
      expect(res.status, password).toBe(400);
      expect(await res.json()).toEqual({
        error: "Password is too common; choose a less predictable password",
      });
    }
    for (const [i, password] of ["correcthorse", "abcdefghijkl", "passwordpass"].entries()) {
      expect((await create(admin.token, { username: `ok${i}`, password })).status, password).toBe(201);
    }
  });

  it("validates the request", async () => {
    expect(await (await create(admin.token, { password: TEST_PASSWORD })).json()).toEqual({
      error: "Username is required",
    });
    const noPassword = await create(admin.token, { username: "nopw" });
    expect(noPassword.status).toBe(400);
    expect(await noPassword.json()).toEqual({ error: "Password is required" });
    const badName = await create(admin.token, { username: "-bad name", password: TEST_PASSWORD });
    expect(badName.status).toBe(400);
    const duplicate = await create(admin.token, { username: "plain", password: TEST_PASSWORD });
    expect(duplicate.status).toBe(409);
    expect(await duplicate.json()).toEqual({ error: "A user with this username already exists" });
  });

  it("creates service accounts without a password; they cannot log in", async () => {
    const res = await create(admin.token, { username: "robot", is_service_account: true });
    expect(res.status).toBe(201);
    const attempt = await requestJson(t.app, "/api/v1/auth/login", {
      method: "POST",
      body: { username: "robot", password: TEST_PASSWORD },
    });
    expect(attempt.status).toBe(401);
  });

  it("lets only superusers create or change superusers", async () => {
    const res = await create(admin.token, { username: "boss", password: TEST_PASSWORD, is_superuser: true });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "Permission denied: requires superuser privileges" });
    expect(
      await typedClient(t, root.token).call(createUserOperation, {
        body: { username: "boss", password: TEST_PASSWORD, is_superuser: true },
      }),
    ).toEqual({ message: "User created", id: expect.any(Number) });
    const change = await requestJson(t.app, `/api/v1/rbac/users/${root.id}`, {
      method: "PUT",
      body: { password: "hijacked-password-1" },
      token: admin.token,
    });
    expect(change.status).toBe(403);
  });

  it("updates a user; a new password ends the user's sessions", async () => {
    const frank = await createUser(t, "frank");
    expect(
      await typedClient(t, admin.token).call(updateUser, {
        params: { id: frank.id },
        body: { display_name: "Frank", password: "a-brand-new-password" },
      }),
    ).toEqual({ message: "User updated" });
    expect((await requestJson(t.app, "/api/v1/capabilities", { token: frank.token })).status).toBe(401);
    expect(await login(t, "frank", "a-brand-new-password")).toBeTruthy();
    const weak = await requestJson(t.app, `/api/v1/rbac/users/${frank.id}`, {
      method: "PUT",
      body: { password: "short" },
      token: admin.token,
    });
    expect(weak.status).toBe(400);
  });

  it("answers an update that changes nothing like any other, and 404 for an unknown user", async () => {
    const hank = await createUser(t, "hank");
    expect(await typedClient(t, admin.token).call(updateUser, { params: { id: hank.id }, body: {} })).toEqual(
      { message: "User updated" },
    );
    const unknown = await requestJson(t.app, "/api/v1/rbac/users/99999", {
      method: "PUT",
      body: {},
      token: admin.token,
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "User not found" });
  });

  it("disabling a user ends its sessions", async () => {
    const gina = await createUser(t, "gina");
    expect(
      await typedClient(t, admin.token).call(updateUser, {
        params: { id: gina.id },
        body: { enabled: false },
      }),
    ).toEqual({ message: "User updated" });
    expect((await requestJson(t.app, "/api/v1/capabilities", { token: gina.token })).status).toBe(401);
  });

  it("answers 400 for a bad id, 404 for an unknown user and 405 for PATCH", async () => {
    const bad = await requestJson(t.app, "/api/v1/rbac/users/abc", {
      method: "PUT",
      body: {},
      token: admin.token,
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Invalid user ID" });
    // The id is checked before the permission.
    const badPlain = await requestJson(t.app, "/api/v1/rbac/users/abc", {
      method: "PUT",
      body: {},
      token: plain.token,
    });
    expect(await badPlain.json()).toEqual({ error: "Invalid user ID" });
    const missing = await requestJson(t.app, "/api/v1/rbac/users/99999", {
      method: "PUT",
      body: {},
      token: admin.token,
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "User not found" });
    const patch = await requestJson(t.app, "/api/v1/rbac/users/1", { method: "PATCH", token: admin.token });
    expect(patch.status).toBe(405);
    expect(patch.headers.get("allow")).toBe("DELETE, PUT");
  });

  it("deletes users, oneself included", async () => {
    const missing = await requestJson(t.app, "/api/v1/rbac/users/99999", {
      method: "DELETE",
      token: admin.token,
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "User not found" });
    const henry = await createUser(t, "henry", { permissions: ["manage_users"] });
    const res = await requestJson(t.app, `/api/v1/rbac/users/${henry.id}`, {
      method: "DELETE",
      token: henry.token,
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect((await requestJson(t.app, "/api/v1/capabilities", { token: henry.token })).status).toBe(401);
    expect(
      (await requestJson(t.app, `/api/v1/rbac/users/${root.id}`, { method: "DELETE", token: admin.token }))
        .status,
    ).toBe(403);
    expect(
      (await requestJson(t.app, `/api/v1/rbac/users/${plain.id}`, { method: "DELETE", token: plain.token }))
        .status,
    ).toBe(403);
  });

  it("shows effective privileges: everything for superusers, group grants for others", async () => {
    const api = typedClient(t, admin.token);
    expect(await api.call(getUserPrivileges, { params: { id: root.id } })).toEqual({
      username: "root",
      is_superuser: true,
      groups: [],
      mcp_privileges: ["*"],
      connection_privileges: { "0": "read_write" },
      admin_permissions: ["*"],
    });
    expect(await api.call(getUserPrivileges, { params: { id: admin.id } })).toEqual({
      username: "useradmin",
      is_superuser: false,
      groups: ["useradmin-admins"],
      mcp_privileges: [],
      connection_privileges: {},
      admin_permissions: ["manage_users"],
    });
    expect(
      (await requestJson(t.app, "/api/v1/rbac/users/99999/privileges", { token: admin.token })).status,
    ).toBe(404);
    expect(
      (await requestJson(t.app, `/api/v1/rbac/users/${root.id}/privileges`, { token: plain.token })).status,
    ).toBe(403);
  });
});
