import { readFileSync } from "node:fs";
import { type Access, hasRequirement } from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp } from "./support.js";

/**
 * Generated from the committed OpenAPI document: every operation that declares a security
 * requirement refuses anonymous and forged credentials, so new routes are covered as they appear.
 */
const document = JSON.parse(
  readFileSync(new URL("../../../packages/contract/openapi.json", import.meta.url), "utf8"),
) as {
  paths: Record<
    string,
    Record<string, { security?: unknown[]; operationId: string; "x-dbmon-access"?: Access }>
  >;
};

const samples: Record<string, string> = { type: "user", permission: "manage_users", scope: "server" };

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({
    method: method.toUpperCase(),
    path: path.replace(/\{([^}]+)\}/g, (_, name: string) => samples[name] ?? "1"),
    template: path,
    operationId: op.operationId,
    isPublic: (op.security ?? []).length === 0,
    access: op["x-dbmon-access"],
  })),
);
const protectedOperations = operations.filter((op) => !op.isPublic);

describe("authorization matrix", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it("covers the operations of the document", () => {
    expect(protectedOperations.length).toBeGreaterThanOrEqual(33);
    expect(
      operations
        .filter((op) => op.isPublic)
        .map((op) => `${op.method} ${op.template}`)
        .sort(),
    ).toEqual(
      [
        "GET /api/v1/openapi.json",
        "GET /api/v1/user/info",
        "GET /health",
        "POST /api/v1/auth/login",
        "POST /api/v1/auth/logout",
        ...["GET /api/v1/llm/health", "GET /api/v1/llm/models", "GET /api/v1/llm/providers"].filter((key) =>
          operations.some((op) => `${op.method} ${op.template}` === key),
        ),
      ].sort(),
    );
  });

  it.each(protectedOperations)("$method $template answers 401 without a token", async (op) => {
    const res = await requestJson(t.app, op.path, {
      method: op.method,
      body: op.method === "GET" ? undefined : {},
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: "Missing or invalid authentication credentials" });
  });

  it.each(protectedOperations)("$method $template answers 401 with a forged token", async (op) => {
    const forged = "q3Yb0dSxv8m1o7y9b4Jb5Jp7yQnK0m2hQh8Qe5xv9mI=";
    const bearer = await requestJson(t.app, op.path, {
      method: op.method,
      body: op.method === "GET" ? undefined : {},
      token: forged,
    });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toEqual({ error: "Invalid or unknown token" });
    const cookie = await t.app.request(op.path, {
      method: op.method,
      headers: { cookie: `session_token=${forged}`, "content-type": "application/json" },
      body: op.method === "GET" ? undefined : "{}",
    });
    expect(cookie.status).toBe(401);
  });
});

describe("malformed identifiers", () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await buildTestApp();
    token = (await createUser(t, "root", { superuser: true })).token;
  });
  afterAll(() => t.close());

  const withIds = protectedOperations.filter((op) => op.template.includes("{id}"));

  it.each(withIds)("$method $template answers 400 for a non-numeric id", async (op) => {
    const path = op.template
      .replace("{id}", "abc")
      .replace(/\{([^}]+)\}/g, (_, name: string) => samples[name] ?? "1");
    const res = await requestJson(t.app, path, {
      method: op.method,
      body: op.method === "GET" ? undefined : {},
      token,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Invalid [\w ]+ ID$/);
  });
});

/** Valid bodies, so a request reaches the lookup of its resource. */
const validBodies: Record<string, unknown> = {
  updateGroup: { name: "renamed" },
  addGroupMember: { user_id: 1 },
  setGroupMCPPrivileges: { privileges: [] },
  grantGroupMCPPrivilege: { privilege: "*" },
  setGroupConnectionPrivileges: { connections: [] },
  grantGroupConnectionPrivilege: { connection_id: 0, access_level: "read" },
  setGroupPermissions: { permissions: [] },
  grantGroupPermission: { permission: "*" },
};

describe("RBAC operations", () => {
  let t: TestApp;
  let root: string;
  let plain: string;
  beforeAll(async () => {
    t = await buildTestApp();
    root = (await createUser(t, "root", { superuser: true })).token;
    plain = (await createUser(t, "plain")).token;
  });
  afterAll(() => t.close());

  const rbac = protectedOperations.filter((op) => op.template.startsWith("/api/v1/rbac/"));
  const request = (op: (typeof rbac)[number], path: string, token: string) =>
    requestJson(t.app, op.operationId === "revokeGroupMCPPrivilege" ? `${path}?name=count_rows` : path, {
      method: op.method,
      body: op.method === "GET" ? undefined : (validBodies[op.operationId] ?? {}),
      token,
    });

  it.each(rbac)("$method $template answers 403 to a caller without privileges", async (op) => {
    const res = await request(op, op.path, plain);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Permission denied: requires /);
  });

  it.each(rbac.filter((op) => op.template.includes("{id}")))(
    "$method $template answers 404 for an unknown id",
    async (op) => {
      const res = await request(op, op.path.replace(/^(\/api\/v1\/rbac\/\w+\/)1/, "$199999"), root);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: string }).error).toMatch(/^(User|Group|Token) not found$/);
    },
  );
});

/**
 * Generated from the access rules the document declares: every operation that needs a permission,
 * a superuser, an MCP grant or access to a connection refuses a caller who has none of them.
 */
describe("403 matrix", () => {
  let t: TestApp;
  let nobody: string;
  beforeAll(async () => {
    t = await buildTestApp();
    // Connection 1 exists (unknown connections are 404 first, D5) and is neither owned by nor
    // shared with the caller.
    t.connections.push({ id: 1, ownerUsername: "someone-else", isShared: false });
    nobody = (await createUser(t, "nobody")).token;
  });
  afterAll(() => t.close());

  const withRequirement = protectedOperations.filter((op) => op.access && hasRequirement(op.access));

  it("covers every operation that declares a requirement", () => {
    expect(withRequirement.length).toBeGreaterThanOrEqual(2);
  });

  it.each(withRequirement)("$method $template answers 403 to a caller without privileges", async (op) => {
    const access = op.access as Exclude<Access, "public">;
    const query = access.connection && "query" in access.connection ? `?${access.connection.query}=1` : "";
    const res = await requestJson(t.app, `${op.path}${query}`, {
      method: op.method,
      body: op.method === "GET" ? undefined : {},
      token: nobody,
    });
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as { error: string };
    if (access.message) {
      expect(error).toBe(access.message);
    } else {
      expect(error).toMatch(/^(Permission denied|Access denied): /);
    }
  });
});
