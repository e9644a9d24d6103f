import { type Access, defineOperation, idParam } from "@dbmon/contract";
import { z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { implement } from "../src/http/operations.js";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "./support.js";
import { undeclaredStatuses } from "./undeclared-statuses.js";

/** Routes that exist only here, declaring requirements the way later endpoints will. */
function addProbeRoute(t: TestApp, method: "get" | "post", path: string, access: Access): void {
  const operation = defineOperation({
    method,
    path,
    operationId: `probe${method}${path.replace(/\W/g, "")}`,
    summary: "test route",
    tag: "utilities",
    access,
    request: path.includes("{id}") ? { params: z.object({ id: idParam("Invalid ID") }) } : {},
    responses: { 200: { description: "ok" } },
  });
  implement(operation, async (c) => c.json({ ok: true }, 200)).register(t.app, (report) =>
    undeclaredStatuses.push(report),
  );
}

describe("authorization layer", () => {
  let t: TestApp;
  let root: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let parentGroup: number;
  beforeAll(async () => {
    t = await buildTestApp();
    addProbeRoute(t, "get", "/probe/connections/{id}", { connection: { param: "id", level: "read" } });
    addProbeRoute(t, "post", "/probe/connections/{id}", { connection: { param: "id", level: "read_write" } });
    addProbeRoute(t, "post", "/probe/blackouts", { permission: "manage_blackouts" });
    addProbeRoute(t, "get", "/probe/mcp/query", { mcp: "query_database" });
    addProbeRoute(t, "get", "/probe/mcp/memory", { mcp: "store_memory" });
    addProbeRoute(t, "get", "/probe/superuser", { superuser: true });
    addProbeRoute(t, "get", "/probe/public", "public");
    implement(
      defineOperation({
        method: "get",
        path: "/probe/metrics",
        operationId: "probeMetrics",
        summary: "test route",
        tag: "utilities",
        access: { connection: { query: "connection_id", level: "read" } },
        request: { query: z.object({ connection_id: idParam("Invalid ID") }) },
        responses: { 200: { description: "ok" } },
        errors: [400],
      }),
      async (c) => c.json({ ok: true }, 200),
    ).register(t.app, (report) => undeclaredStatuses.push(report));
    t.app.get("/probe/visible", async (c) => c.json(await c.get("access").visibleConnections()));
    t.connections.push(
      { id: 1, ownerUsername: "alice", isShared: false },
      { id: 2, ownerUsername: "bob", isShared: false },
      { id: 3, ownerUsername: null, isShared: true },
      { id: 4, ownerUsername: "bob", isShared: true },
    );
    root = await createUser(t, "root", { superuser: true });
    alice = await createUser(t, "alice");
    bob = await createUser(t, "bob");
    // alice ∈ child ⊂ parent: what parent holds, alice holds.
    const { groups } = t.services.auth;
    const parent = await groups.create("parent", "");
    const child = await groups.create("child", "");
    parentGroup = parent.id;
    await groups.addMember(parent.id, { groupId: child.id });
    await groups.addMember(child.id, { userId: alice.id });
    await groups.setPermissions(parent.id, ["manage_blackouts"]);
    await groups.setMcpGrants(parent.id, ["query_database"]);
    // Connection 4 is granted by id, so only grant holders reach it, shared or not.
    await groups.setConnectionGrants(parent.id, [{ connectionId: 4, accessLevel: "read_write" }]);
  });
  afterAll(() => t.close());

  const get = (path: string, token: string) => requestJson(t.app, path, { token });
  const post = (path: string, token: string) => requestJson(t.app, path, { method: "POST", token, body: {} });

  it("inherits admin permissions and MCP grants through nested groups", async () => {
    expect((await post("/probe/blackouts", alice.token)).status).toBe(200);
    const refused = await post("/probe/blackouts", bob.token);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: "Permission denied: requires manage_blackouts permission",
    });
    expect((await get("/probe/mcp/query", alice.token)).status).toBe(200);
    const tool = await get("/probe/mcp/query", bob.token);
    expect(tool.status).toBe(403);
    expect(await tool.json()).toEqual({
      error: "Access denied: you do not have permission to use tool 'query_database'",
    });
    // Public MCP items need no grant.
    expect((await get("/probe/mcp/memory", bob.token)).status).toBe(200);
  });

  it("answers wildcard grants", async () => {
    const carol = await createUser(t, "carol", { permissions: ["*"] });
    expect((await post("/probe/blackouts", carol.token)).status).toBe(200);
    const wildcardGroup = await t.services.auth.groups.create("all-tools", "");
    await t.services.auth.groups.setMcpGrants(wildcardGroup.id, ["*"]);
    await t.services.auth.groups.addMember(wildcardGroup.id, { userId: bob.id });
    expect((await get("/probe/mcp/query", bob.token)).status).toBe(200);
    await t.services.auth.groups.removeMember(wildcardGroup.id, { userId: bob.id });
  });

  it("decides connection access: superuser, owner, shared, granted by id", async () => {
    expect((await post("/probe/connections/2", root.token)).status).toBe(200);
    expect((await post("/probe/connections/1", alice.token)).status).toBe(200);
    const foreign = await get("/probe/connections/2", alice.token);
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({
      error: "Permission denied: you do not have access to this connection",
    });
    expect((await post("/probe/connections/3", bob.token)).status).toBe(200);
    // Connection 4 belongs to bob and is shared, but a group grants it by id: grant holders only.
    expect((await get("/probe/connections/4", bob.token)).status).toBe(403);
    expect((await post("/probe/connections/4", alice.token)).status).toBe(200);
    // A connection the catalog does not know is 404 for everyone (D5), before any access decision.
    const unknown = await get("/probe/connections/99", alice.token);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "Connection not found" });
    // A malformed id is a 400 before the access decision.
    expect((await get("/probe/connections/abc", alice.token)).status).toBe(400);
  });

  it("takes the connection from a query parameter when the route says so", async () => {
    expect((await get("/probe/metrics?connection_id=1", alice.token)).status).toBe(200);
    expect((await get("/probe/metrics?connection_id=2", alice.token)).status).toBe(403);
    const bad = await get("/probe/metrics?connection_id=x", alice.token);
    expect(bad.status).toBe(400);
    expect((await get("/probe/metrics", alice.token)).status).toBe(400);
  });

  it("gives a grant on connection 0 access to every connection at its level", async () => {
    const dave = await createUser(t, "dave");
    const readers = await t.services.auth.groups.create("readers", "");
    await t.services.auth.groups.setConnectionGrants(readers.id, [{ connectionId: 0, accessLevel: "read" }]);
    await t.services.auth.groups.addMember(readers.id, { userId: dave.id });
    for (const id of [1, 2, 3, 4]) {
      expect((await get(`/probe/connections/${id}`, dave.token)).status, `read ${id}`).toBe(200);
    }
    const write = await post("/probe/connections/2", dave.token);
    expect(write.status).toBe(403);
    expect(await write.json()).toEqual({
      error: "Permission denied: you do not have write access to this connection",
    });
    // Connection 3 is shared: everyone may write it, the read grant does not lower that.
    expect((await post("/probe/connections/3", dave.token)).status).toBe(200);
    expect(await (await get("/probe/visible", dave.token)).json()).toEqual({ all: true, ids: [1, 2, 3, 4] });
  });

  it("lists visible connections", async () => {
    expect(await (await get("/probe/visible", root.token)).json()).toEqual({ all: true, ids: [1, 2, 3, 4] });
    expect(await (await get("/probe/visible", alice.token)).json()).toEqual({ all: false, ids: [1, 3, 4] });
    expect(await (await get("/probe/visible", bob.token)).json()).toEqual({ all: false, ids: [2, 3] });
  });

  it("narrows service tokens by their scope, superusers' tokens included", async () => {
    const { auth } = t.services;
    const aliceUser = await auth.users.byId(alice.id);
    const rootUser = await auth.users.byId(root.id);
    if (!aliceUser || !rootUser) {
      throw new Error("test users missing");
    }
    const token = await auth.credentials.issueServiceToken(aliceUser, "scoped", null);
    expect((await post("/probe/connections/4", token.token)).status).toBe(200);
    await auth.scopes.setScope(token.id, {
      connections: [{ connectionId: 4, accessLevel: "read" }],
      permissions: ["manage_users"],
      mcp: ["count_rows"],
    });
    // Read stays, write goes: the scope caps the owner's read_write at read. The scope was set
    // outside the API, so the cache learns of it by NOTIFY, a moment later.
    await expect.poll(async () => (await post("/probe/connections/4", token.token)).status).toBe(403);
    expect((await get("/probe/connections/4", token.token)).status).toBe(200);
    // Outside the scope: refused, even for a connection the owner owns.
    expect((await get("/probe/connections/1", token.token)).status).toBe(403);
    // The scope cannot widen: manage_users is not the owner's, manage_blackouts is outside the scope.
    expect((await post("/probe/blackouts", token.token)).status).toBe(403);
    expect((await get("/probe/mcp/query", token.token)).status).toBe(403);
    expect(await (await get("/probe/visible", token.token)).json()).toEqual({ all: false, ids: [4] });

    const su = await auth.credentials.issueServiceToken(rootUser, "su", null);
    expect((await get("/probe/superuser", su.token)).status).toBe(200);
    await auth.scopes.setScope(su.id, {
      connections: [{ connectionId: 3, accessLevel: "read" }],
      permissions: ["manage_probes"],
    });
    await expect.poll(async () => (await post("/probe/connections/3", su.token)).status).toBe(403);
    expect((await get("/probe/connections/3", su.token)).status).toBe(200);
    expect((await get("/probe/connections/2", su.token)).status).toBe(403);
    expect((await post("/probe/blackouts", su.token)).status).toBe(403);
    // The session of the same superuser is not narrowed.
    expect((await post("/probe/blackouts", root.token)).status).toBe(200);
  });

  it("refuses non-superusers on superuser routes", async () => {
    const res = await get("/probe/superuser", alice.token);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "Permission denied: requires superuser privileges" });
  });

  it("follows grant changes made outside the API", async () => {
    // A write that bypasses the API reaches the access cache by NOTIFY, a moment later
    // (docs/auth.md, "How quickly changes apply").
    await t.services.auth.groups.setPermissions(parentGroup, []);
    await expect.poll(async () => (await post("/probe/blackouts", alice.token)).status).toBe(403);
    await t.services.auth.groups.setPermissions(parentGroup, ["manage_blackouts"]);
    await expect.poll(async () => (await post("/probe/blackouts", alice.token)).status).toBe(200);
  });

  it("registers a public operation without any check", async () => {
    const res = await requestJson(t.app, "/probe/public");
    expect(res.status).toBe(200);
  });
});
