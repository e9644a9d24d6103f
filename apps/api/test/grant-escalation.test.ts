import {
  addGroupMember,
  clearTokenScope,
  createGroup,
  createToken,
  getGroupConnectionPrivileges,
  grantGroupConnectionPrivilege,
  grantGroupMcpPrivilege,
  setGroupConnectionPrivileges,
  setGroupMcpPrivileges,
  setGroupPermissions,
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

/**
 * A caller can never grant what it does not hold (docs/auth.md, a deliberate difference from the
 * reference): not by joining a group, not by granting privileges, not by widening a token's scope.
 */
describe("delegated administration grants only what the caller holds", () => {
  let t: TestApp;
  let root: TestUser;
  let connectionA: number;
  let connectionB: number;

  /** A refused call: the raw response. */
  const call = (token: string, path: string, method = "GET", body?: unknown) =>
    requestJson(t.app, path, { method, token, body });
  const api = (token: string) => typedClient(t, token);
  const refusal = (grant: string) => ({
    error: `Permission denied: you cannot grant ${grant}, which you do not hold yourself`,
  });
  const addConnection = async (name: string): Promise<number> => {
    const [row] = await t.datastore.sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username, is_shared)
      values (${name}, '127.0.0.1', 5432, 'postgres', 'postgres', null, false) returning id`;
    return (row as { id: number }).id;
  };
  const group = async (
    name: string,
    grants: {
      permissions?: InputOf<typeof setGroupPermissions>["body"]["permissions"];
      mcp?: InputOf<typeof setGroupMcpPrivileges>["body"]["privileges"];
      connections?: InputOf<typeof setGroupConnectionPrivileges>["body"]["connections"];
    },
  ) => {
    const admin = api(root.token);
    const { id } = await admin.call(createGroup, { body: { name, description: "" } });
    const params = { id };
    if (grants.permissions) {
      await admin.call(setGroupPermissions, { params, body: { permissions: grants.permissions } });
    }
    if (grants.mcp) {
      await admin.call(setGroupMcpPrivileges, { params, body: { privileges: grants.mcp } });
    }
    if (grants.connections) {
      await admin.call(setGroupConnectionPrivileges, { params, body: { connections: grants.connections } });
    }
    return id;
  };
  type Member = InputOf<typeof addGroupMember>["body"];
  /** A refused join: the raw response. */
  const join = (token: string, groupId: number, member: Member) =>
    call(token, `/api/v1/rbac/groups/${groupId}/members`, "POST", member);
  const joined = (token: string, groupId: number, member: Member) =>
    api(token).call(addGroupMember, { params: { id: groupId }, body: member });

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    connectionA = await addConnection("a");
    connectionB = await addConnection("b");
  });
  afterAll(() => t.close());

  it("manage_groups cannot add anyone to a group granting what the caller lacks", async () => {
    const manager = await createUser(t, "group-manager", { permissions: ["manage_groups"] });
    const everything = await group("everything", { permissions: ["*"] });
    const readersOfA = await group("readers-of-a", {
      connections: [{ connection_id: connectionA, access_level: "read" }],
    });
    const toolUsers = await group("tool-users", { mcp: ["query_database"] });
    const nested = await group("nested-in-everything", {});
    await joined(root.token, everything, { group_id: nested });
    const harmless = await group("harmless", { permissions: ["manage_groups"] });

    expect(await (await join(manager.token, everything, { user_id: manager.id })).json()).toEqual(
      refusal("admin permission *"),
    );
    expect((await join(manager.token, readersOfA, { user_id: manager.id })).status).toBe(403);
    expect(await (await join(manager.token, readersOfA, { user_id: manager.id })).json()).toEqual(
      refusal(`read on connection ${connectionA}`),
    );
    expect(await (await join(manager.token, toolUsers, { user_id: manager.id })).json()).toEqual(
      refusal("MCP privilege query_database"),
    );
    // Grants come from the groups a group is nested in too, and nesting a group is joining.
    expect((await join(manager.token, nested, { user_id: manager.id })).status).toBe(403);
    const inner = await group("inner", {});
    expect((await join(manager.token, everything, { group_id: inner })).status).toBe(403);

    const members = await t.datastore.sql`
      select 1 from group_memberships where member_user_id = ${manager.id} and parent_group_id <> ${harmless}
        and parent_group_id in (${everything}, ${readersOfA}, ${toolUsers}, ${nested})`;
    expect(members.length).toBe(0);
    await joined(manager.token, harmless, { user_id: manager.id });
    await joined(root.token, everything, { group_id: inner });
  });

  it("manage_permissions grants only the MCP items and connection levels the caller holds", async () => {
    const granter = await createUser(t, "permission-manager", { permissions: ["manage_permissions"] });
    const own = await group("granter-grants", {
      connections: [{ connection_id: connectionA, access_level: "read" }],
      mcp: ["list_probes"],
    });
    await joined(root.token, own, { user_id: granter.id });
    const target = await group("target", {});
    const base = `/api/v1/rbac/groups/${target}/privileges`;

    expect(
      await (await call(granter.token, `${base}/mcp`, "POST", { privilege: "query_database" })).json(),
    ).toEqual(refusal("MCP privilege query_database"));
    expect(await (await call(granter.token, `${base}/mcp`, "PUT", { privileges: ["*"] })).json()).toEqual(
      refusal("MCP privilege *"),
    );
    const params = { id: target };
    await api(granter.token).call(grantGroupMcpPrivilege, { params, body: { privilege: "list_probes" } });

    const grant = (connection_id: number, access_level: string) =>
      call(granter.token, `${base}/connections`, "POST", { connection_id, access_level });
    expect(await (await grant(connectionA, "read_write")).json()).toEqual(
      refusal(`read_write on connection ${connectionA}`),
    );
    expect(await (await grant(connectionB, "read")).json()).toEqual(
      refusal(`read on connection ${connectionB}`),
    );
    expect(await (await grant(0, "read")).json()).toEqual(refusal("read on every connection"));
    await api(granter.token).call(grantGroupConnectionPrivilege, {
      params,
      body: { connection_id: connectionA, access_level: "read" },
    });
    const replaced = await call(granter.token, `${base}/connections`, "PUT", {
      connections: [
        { connection_id: connectionA, access_level: "read" },
        { connection_id: connectionB, access_level: "read" },
      ],
    });
    expect(replaced.status).toBe(403);

    // Grants the group already has may be kept in a new set by a caller who lacks them.
    await api(root.token).call(grantGroupConnectionPrivilege, {
      params,
      body: { connection_id: connectionB, access_level: "read_write" },
    });
    await api(granter.token).call(setGroupConnectionPrivileges, {
      params,
      body: { connections: [{ connection_id: connectionB, access_level: "read_write" }] },
    });
    expect((await api(root.token).call(getGroupConnectionPrivileges, { params })).connections).toHaveLength(
      1,
    );
  });

  it("manage_token_scopes cannot widen a token, its own or another's, beyond what the caller holds", async () => {
    const holder = await createUser(t, "token-manager", {
      permissions: ["manage_token_scopes", "manage_users"],
    });
    const issue = (token: string, owner: string) =>
      api(token).call(createToken, { body: { owner_username: owner, annotation: "x" } });
    const own = await issue(holder.token, "token-manager");
    await api(holder.token).call(setTokenScope, {
      params: { id: own.id },
      body: { admin_permissions: ["manage_token_scopes"] },
    });
    // The narrowed token itself holds manage_token_scopes only: it cannot lift its own scope.
    const lift = await call(own.token, `/api/v1/rbac/tokens/${own.id}/scope`, "PUT", {
      admin_permissions: [],
    });
    expect(lift.status).toBe(403);
    expect(await lift.json()).toEqual(refusal("admin permission manage_users"));
    expect((await call(own.token, `/api/v1/rbac/tokens/${own.id}/scope`, "DELETE")).status).toBe(403);
    expect(
      (await call(own.token, `/api/v1/rbac/tokens/${own.id}/scope`, "PUT", { admin_permissions: ["*"] }))
        .status,
    ).toBe(403);
    // Narrowing further is fine, and the unscoped session holds what lifting gives.
    await api(own.token).call(setTokenScope, {
      params: { id: own.id },
      body: { mcp_privileges: ["list_probes"] },
    });
    await api(holder.token).call(clearTokenScope, { params: { id: own.id } });

    // A superuser's narrow token: the holder may narrow it, never widen it.
    const rootToken = await issue(root.token, "root");
    const path = `/api/v1/rbac/tokens/${rootToken.id}/scope`;
    const scoped = { id: rootToken.id };
    await api(root.token).call(setTokenScope, {
      params: scoped,
      body: { connections: [{ connection_id: connectionA, access_level: "read" }] },
    });
    const widened = await call(holder.token, path, "PUT", { connections: [] });
    expect(widened.status).toBe(403);
    expect(await widened.json()).toEqual(refusal(`read_write on connection ${connectionA}`));
    expect((await call(holder.token, path, "DELETE")).status).toBe(403);
    await api(holder.token).call(setTokenScope, {
      params: scoped,
      body: { admin_permissions: ["manage_users"] },
    });
    await api(root.token).call(clearTokenScope, { params: scoped });
  });

  it("manage_token_scopes issues tokens only for users holding no more than the caller", async () => {
    const holder = await createUser(t, "token-issuer", { permissions: ["manage_token_scopes"] });
    const admin = await createUser(t, "almost-root", { permissions: ["*"] });
    const reader = await createUser(t, "reader-of-b");
    const readers = await group("readers-of-b", {
      connections: [{ connection_id: connectionB, access_level: "read" }],
    });
    await joined(root.token, readers, { user_id: reader.id });
    const issue = (owner: string) =>
      call(holder.token, "/api/v1/rbac/tokens", "POST", { owner_username: owner, annotation: "x" });
    const forAdmin = await issue(admin.username);
    expect(forAdmin.status).toBe(403);
    expect(await forAdmin.json()).toEqual(refusal("admin permission manage_connections"));
    expect(await (await issue(reader.username)).json()).toEqual(refusal(`read on connection ${connectionB}`));
    await api(holder.token).call(createToken, { body: { owner_username: holder.username, annotation: "x" } });
    await api(root.token).call(createToken, { body: { owner_username: admin.username } });
  });
});
