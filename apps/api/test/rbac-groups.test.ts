import {
  addGroupMember,
  createGroup,
  deleteGroup,
  getGroup,
  getGroupConnectionPrivileges,
  getGroupEffectivePrivileges,
  getGroupMcpPrivileges,
  getGroupPermissions,
  grantGroupConnectionPrivilege,
  grantGroupMcpPrivilege,
  grantGroupPermission,
  listGroups,
  listMcpPrivileges,
  removeGroupMember,
  revokeGroupConnectionPrivilege,
  revokeGroupMcpPrivilege,
  revokeGroupPermission,
  setGroupConnectionPrivileges,
  setGroupMcpPrivileges,
  setGroupPermissions,
  updateGroup,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

describe("RBAC groups", () => {
  let t: TestApp;
  let root: TestUser;
  let groupAdmin: TestUser;
  let permAdmin: TestUser;
  let plain: TestUser;
  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    groupAdmin = await createUser(t, "groupadmin", { permissions: ["manage_groups"] });
    permAdmin = await createUser(t, "permadmin", { permissions: ["manage_permissions"] });
    // A caller grants only what it holds itself (docs/auth.md): this one holds every MCP item and
    // read_write on every connection.
    const holdings = await t.services.auth.groups.create("permadmin-holdings", "");
    await t.services.auth.groups.setMcpGrants(holdings.id, ["*"]);
    await t.services.auth.groups.setConnectionGrants(holdings.id, [
      { connectionId: 0, accessLevel: "read_write" },
    ]);
    await t.services.auth.groups.addMember(holdings.id, { userId: permAdmin.id });
    plain = await createUser(t, "plain");
  });
  afterAll(() => t.close());

  const call = (method: string, path: string, token: string, body?: unknown) =>
    requestJson(t.app, `/api/v1/rbac${path}`, { method, token, body });
  /** The typed clients of the group, permission and superuser administrators. */
  const groups = () => typedClient(t, groupAdmin.token);
  const permissions = () => typedClient(t, permAdmin.token);
  const superuser = () => typedClient(t, root.token);
  const newGroup = async (name: string, description = "") =>
    (await groups().call(createGroup, { body: { name, description } })).id;

  it("creates, lists, reads, updates and deletes groups", async () => {
    const { id, name } = await groups().call(createGroup, {
      body: { name: "dba", description: "Database admins" },
    });
    expect(name).toBe("dba");
    await groups().call(addGroupMember, { params: { id }, body: { user_id: plain.id } });

    const { groups: listed } = await groups().call(listGroups);
    expect(listed.find((g) => g.id === id)).toEqual({
      id,
      name: "dba",
      description: "Database admins",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      member_count: 1,
    });

    expect(await groups().call(getGroup, { params: { id } })).toEqual({
      id,
      name: "dba",
      description: "Database admins",
      created_at: expect.any(String),
      user_members: ["plain"],
      group_members: [],
      mcp_privileges: [],
      connection_privileges: [],
      admin_permissions: [],
    });

    const updated = await groups().call(updateGroup, { params: { id }, body: { description: "DBAs" } });
    expect(updated).toMatchObject({ id, name: "dba", description: "DBAs", member_count: 1 });

    await groups().call(deleteGroup, { params: { id } });
    expect((await call("GET", `/groups/${id}`, groupAdmin.token)).status).toBe(404);
    const again = await call("DELETE", `/groups/${id}`, groupAdmin.token);
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: "Group not found" });
  });

  it("validates group bodies and ids", async () => {
    const noName = await call("POST", "/groups", groupAdmin.token, { name: "" });
    expect(noName.status).toBe(400);
    expect(await noName.json()).toEqual({ error: "Name is required" });
    await newGroup("unique");
    const duplicate = await call("POST", "/groups", groupAdmin.token, { name: "unique" });
    expect(duplicate.status).toBe(409);
    const id = await newGroup("to-update");
    const empty = await call("PUT", `/groups/${id}`, groupAdmin.token, {});
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "At least one of name or description is required" });
    expect((await call("PUT", "/groups/99999", groupAdmin.token, { name: "x" })).status).toBe(404);
    const bad = await call("GET", "/groups/abc", groupAdmin.token);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Invalid group ID" });
  });

  it("needs manage_groups", async () => {
    const res = await call("GET", "/groups", plain.token);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "Permission denied: requires manage_groups permission" });
    expect((await call("POST", "/groups", permAdmin.token, { name: "x" })).status).toBe(403);
  });

  it("adds and removes members with the reference's validation messages", async () => {
    const id = await newGroup("members");
    const none = await call("POST", `/groups/${id}/members`, groupAdmin.token, {});
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ error: "Either user_id or group_id is required" });
    const both = await call("POST", `/groups/${id}/members`, groupAdmin.token, { user_id: 1, group_id: 1 });
    expect(await both.json()).toEqual({ error: "Only one of user_id or group_id may be specified" });
    const robot = await call("DELETE", `/groups/${id}/members/robot/1`, groupAdmin.token);
    expect(robot.status).toBe(400);
    expect(await robot.json()).toEqual({ error: "Invalid member type: must be 'user' or 'group'" });
    expect((await call("POST", `/groups/${id}/members`, groupAdmin.token, { user_id: 99999 })).status).toBe(
      404,
    );
    expect(
      (await call("POST", "/groups/99999/members", groupAdmin.token, { user_id: plain.id })).status,
    ).toBe(404);

    await groups().call(addGroupMember, { params: { id }, body: { user_id: plain.id } });
    const child = await newGroup("members-child");
    await groups().call(addGroupMember, { params: { id }, body: { group_id: child } });
    const detail = await groups().call(getGroup, { params: { id } });
    expect(detail.user_members).toEqual(["plain"]);
    expect(detail.group_members).toEqual(["members-child"]);

    await groups().call(removeGroupMember, { params: { id, type: "user", memberId: plain.id } });
    await groups().call(removeGroupMember, { params: { id, type: "group", memberId: child } });
    const gone = await call("DELETE", `/groups/${id}/members/user/${plain.id}`, groupAdmin.token);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: "Member not found" });
  });

  it("refuses self-membership and cycles", async () => {
    const a = await newGroup("cycle-a");
    const b = await newGroup("cycle-b");
    const c = await newGroup("cycle-c");
    const self = await call("POST", `/groups/${a}/members`, groupAdmin.token, { group_id: a });
    expect(self.status).toBe(400);
    expect(await self.json()).toEqual({ error: "Cannot add a group to itself" });
    await groups().call(addGroupMember, { params: { id: a }, body: { group_id: b } });
    await groups().call(addGroupMember, { params: { id: b }, body: { group_id: c } });
    const cycle = await call("POST", `/groups/${c}/members`, groupAdmin.token, { group_id: a });
    expect(cycle.status).toBe(400);
    expect(await cycle.json()).toEqual({ error: "Adding this group would create a circular reference" });
  });

  it("manages MCP privileges in the spec's and the reference's forms", async () => {
    const id = await newGroup("mcp");
    const put = await permissions().call(setGroupMcpPrivileges, {
      params: { id },
      body: { privileges: ["query_database", "list_probes"] },
    });
    expect(put).toEqual({ group_id: id, privileges: ["list_probes", "query_database"] });
    const unknown = await call("PUT", `/groups/${id}/privileges/mcp`, permAdmin.token, {
      privileges: ["bogus"],
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: "Unknown MCP privilege: bogus" });

    await permissions().call(grantGroupMcpPrivilege, { params: { id }, body: { privilege: "count_rows" } });
    const missing = await call("POST", `/groups/${id}/privileges/mcp`, permAdmin.token, {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "Privilege is required" });
    const noName = await call("DELETE", `/groups/${id}/privileges/mcp`, permAdmin.token);
    expect(noName.status).toBe(400);
    expect(await noName.json()).toEqual({ error: "Query parameter 'name' is required" });
    await permissions().call(revokeGroupMcpPrivilege, { params: { id }, query: { name: "list_probes" } });
    expect(
      (await call("DELETE", `/groups/${id}/privileges/mcp?name=list_probes`, permAdmin.token)).status,
    ).toBe(404);
    expect(await permissions().call(getGroupMcpPrivileges, { params: { id } })).toEqual({
      group_id: id,
      privileges: ["count_rows", "query_database"],
    });

    // The wildcard replaces the individual grants.
    await permissions().call(grantGroupMcpPrivilege, { params: { id }, body: { privilege: "*" } });
    expect(await permissions().call(getGroupMcpPrivileges, { params: { id } })).toEqual({
      group_id: id,
      privileges: ["*"],
    });
    const detail = await groups().call(getGroup, { params: { id } });
    expect(detail.mcp_privileges).toEqual([
      {
        id: 0,
        identifier: "*",
        item_type: "tool",
        description: "All MCP privileges",
        is_public: false,
        created_at: expect.any(String),
      },
    ]);
    expect((await call("GET", `/groups/${id}/privileges/mcp`, groupAdmin.token)).status).toBe(403);
    expect((await call("GET", "/groups/99999/privileges/mcp", permAdmin.token)).status).toBe(404);
  });

  it("manages connection privileges in both forms", async () => {
    const id = await newGroup("conns");
    const put = await permissions().call(setGroupConnectionPrivileges, {
      params: { id },
      body: {
        connections: [
          { connection_id: 3, access_level: "read" },
          { connection_id: 0, access_level: "read" },
        ],
      },
    });
    expect(put).toEqual({
      group_id: id,
      connections: [
        { connection_id: 0, access_level: "read" },
        { connection_id: 3, access_level: "read" },
      ],
    });
    const negative = await call("POST", `/groups/${id}/privileges/connections`, permAdmin.token, {
      connection_id: -1,
      access_level: "read",
    });
    expect(negative.status).toBe(400);
    expect(await negative.json()).toEqual({ error: "Valid connection_id is required" });
    const admin = await call("POST", `/groups/${id}/privileges/connections`, permAdmin.token, {
      connection_id: 1,
      access_level: "admin",
    });
    expect(admin.status).toBe(400);
    expect(await admin.json()).toEqual({ error: "access_level must be 'read' or 'read_write'" });
    await permissions().call(grantGroupConnectionPrivilege, {
      params: { id },
      body: { connection_id: 3, access_level: "read_write" },
    });
    const bad = await call("DELETE", `/groups/${id}/privileges/connections/abc`, permAdmin.token);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Invalid connection ID" });
    await permissions().call(revokeGroupConnectionPrivilege, { params: { id, connectionId: 0 } });
    expect((await call("DELETE", `/groups/${id}/privileges/connections/0`, permAdmin.token)).status).toBe(
      404,
    );
    expect(await permissions().call(getGroupConnectionPrivileges, { params: { id } })).toEqual({
      group_id: id,
      connections: [{ connection_id: 3, access_level: "read_write" }],
    });
    const detail = await groups().call(getGroup, { params: { id } });
    expect(detail.connection_privileges).toEqual([
      {
        id: expect.any(Number),
        group_id: id,
        connection_id: 3,
        access_level: "read_write",
        created_at: expect.any(String),
      },
    ]);
  });

  it("lets only superusers manage admin permissions", async () => {
    const id = await newGroup("perms");
    const refused = await call("POST", `/groups/${id}/permissions`, groupAdmin.token, {
      permission: "manage_users",
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "Permission denied: requires superuser privileges" });
    await superuser().call(grantGroupPermission, { params: { id }, body: { permission: "manage_users" } });
    expect(await superuser().call(getGroupPermissions, { params: { id } })).toEqual({
      group_id: id,
      permissions: ["manage_users"],
    });
    const bogus = await call("POST", `/groups/${id}/permissions`, root.token, { permission: "bogus" });
    expect(bogus.status).toBe(400);
    expect(await bogus.json()).toEqual({ error: "Invalid permission: bogus" });
    const missing = await call("POST", `/groups/${id}/permissions`, root.token, {});
    expect(await missing.json()).toEqual({ error: "Permission is required" });

    const put = await superuser().call(setGroupPermissions, {
      params: { id },
      body: { permissions: ["manage_blackouts", "manage_probes"] },
    });
    expect(put).toEqual({ group_id: id, permissions: ["manage_blackouts", "manage_probes"] });
    expect(
      (await call("PUT", `/groups/${id}/permissions`, root.token, { permissions: ["nope"] })).status,
    ).toBe(400);
    await superuser().call(revokeGroupPermission, { params: { id, permission: "manage_probes" } });
    expect((await call("DELETE", `/groups/${id}/permissions/manage_probes`, root.token)).status).toBe(404);
    expect((await call("DELETE", `/groups/${id}/permissions/nope`, root.token)).status).toBe(400);
    expect((await call("GET", `/groups/${id}/permissions`, permAdmin.token)).status).toBe(403);
    expect((await call("GET", "/groups/99999/permissions", root.token)).status).toBe(404);
  });

  it("computes effective privileges with those of enclosing groups", async () => {
    const parent = await newGroup("eff-parent");
    const child = await newGroup("eff-child");
    await groups().call(addGroupMember, { params: { id: parent }, body: { group_id: child } });
    await superuser().call(setGroupPermissions, {
      params: { id: parent },
      body: { permissions: ["manage_blackouts"] },
    });
    await permissions().call(setGroupMcpPrivileges, {
      params: { id: parent },
      body: { privileges: ["*", "count_rows"] },
    });
    await permissions().call(setGroupConnectionPrivileges, {
      params: { id: parent },
      body: { connections: [{ connection_id: 5, access_level: "read" }] },
    });
    await permissions().call(setGroupConnectionPrivileges, {
      params: { id: child },
      body: { connections: [{ connection_id: 5, access_level: "read_write" }] },
    });
    expect(await permissions().call(getGroupEffectivePrivileges, { params: { id: child } })).toEqual({
      group_name: "eff-child",
      mcp_privileges: ["*"],
      connection_privileges: [{ connection_id: 5, access_level: "read_write" }],
      admin_permissions: ["manage_blackouts"],
    });
    expect((await call("GET", `/groups/${child}/effective-privileges`, groupAdmin.token)).status).toBe(403);
    expect((await call("GET", "/groups/99999/effective-privileges", permAdmin.token)).status).toBe(404);
  });

  it("lists the registered MCP identifiers", async () => {
    const items = await permissions().call(listMcpPrivileges);
    // The 22 items of the reference's catalogue, get_blackouts, which dbmon grants like any tool, and
    // dbmon's diagnostics tools (active session history, index advisor, health checks).
    expect(items).toHaveLength(29);
    expect(items.map((item) => item.identifier)).toEqual(
      expect.arrayContaining([
        "get_blackouts",
        "get_database_load",
        "get_top_queries_by_load",
        "get_lock_tree",
        "recommend_indexes",
        "explain_with_hypothetical_indexes",
        "analyze_db_health",
      ]),
    );
    expect(items[0]).toEqual({
      id: expect.any(Number),
      identifier: "pg://connection_info",
      item_type: "resource",
      description: expect.any(String),
      is_public: false,
      created_at: expect.any(String),
    });
    expect(items.find((item) => item.identifier === "store_memory")?.is_public).toBe(true);
    expect((await call("GET", "/privileges/mcp", plain.token)).status).toBe(403);
  });
});
