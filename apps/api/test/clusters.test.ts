import {
  addServerToCluster,
  clearConnectionRelationships,
  clusterGroupOperations,
  clusterOperations,
  createCluster,
  createClusterGroup,
  createClusterInGroup,
  deleteCluster,
  deleteClusterGroup,
  deleteClusterRelationship,
  getCluster,
  getClusterGroup,
  getClusterTopology,
  getConnectionCluster,
  listClusterGroups,
  listClusterRelationships,
  listClusterServers,
  listClustersFlat,
  listGroupClusters,
  setConnectionRelationships,
  updateCluster,
  updateClusterGroup,
  updateConnectionCluster,
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

const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

describe("clusters and cluster groups", () => {
  let t: TestApp;
  let root: TestUser;
  let manager: TestUser;
  let plain: TestUser;
  let defaultGroupId: number;
  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    manager = await createUser(t, "manager", { permissions: ["manage_connections"] });
    plain = await createUser(t, "plain");
    const [group] = await t.datastore.sql<{ id: number }[]>`select id from cluster_groups where is_default`;
    defaultGroupId = group?.id ?? 0;
  });
  afterAll(() => t.close());

  /** The typed client of `user`: every success checked against the contract. */
  const api = (user: TestUser) => typedClient(t, user.token);
  /** A raw request, for refusals and what the typed client would not send. */
  const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
    requestJson(t.app, `/api/v1${path}`, { method, token, body });
  /** The body of a refusal, once its status is `status`. */
  const json = async (res: Response, status: number): Promise<unknown> => {
    expect({ status: res.status, body: res.status === status ? "" : await res.clone().text() }).toEqual({
      status,
      body: "",
    });
    return await res.json();
  };

  /** A connection row owned by `owner` (root), shared (visible to every user) unless told otherwise. */
  async function addConnection(name: string, options: { owner?: string; shared?: boolean } = {}) {
    const [row] = await t.datastore.sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username, is_shared)
      values (${name}, ${`${name}.example.net`}, 5432, 'postgres', 'postgres', ${options.owner ?? "root"},
        ${options.shared ?? true})
      returning id`;
    const id = row?.id ?? 0;
    t.connections.push({ id, ownerUsername: options.owner ?? "root", isShared: options.shared ?? true });
    return id;
  }

  it("answers [] to a user who sees no connection (§27 item 55)", async () => {
    const hidden = await addConnection("private-one", { shared: false });
    const cluster = await api(root).call(createCluster, { body: { name: "private" } });
    await api(root).call(addServerToCluster, {
      params: { id: String(cluster.id) },
      body: { connection_id: hidden },
    });
    expect(await api(plain).call(getClusterTopology)).toEqual([]);
    expect(await api(plain).call(listClustersFlat)).toEqual([]);
    expect(await api(plain).call(listClusterGroups)).toEqual([]);
    expect(await json(await call("GET", `/clusters/${cluster.id}`, plain.token), 404)).toEqual({
      error: "Cluster not found",
    });
    const full = await api(root).call(getClusterTopology);
    expect(full[0]?.clusters.map((c) => c.name)).toEqual(["private"]);
  });

  it("refuses anonymous callers on every route, and plain users on every write", async () => {
    const routes = [
      ...clusterGroupOperations,
      ...clusterOperations,
      getConnectionCluster,
      updateConnectionCluster,
    ];
    const bodies: Record<string, unknown> = {
      createClusterGroup: { name: "x" },
      updateClusterGroup: { name: "x" },
      createClusterInGroup: { name: "x" },
      createCluster: { name: "x" },
      updateCluster: { name: "x" },
      addServerToCluster: { connection_id: 1 },
      setConnectionRelationships: { relationships: [] },
      updateConnectionCluster: { cluster_id: null },
    };
    const reads = new Set([
      "listClusterGroups",
      "getClusterGroup",
      "listGroupClusters",
      "getClusterTopology",
      "listClustersFlat",
      "getCluster",
      "listClusterServers",
      "listClusterRelationships",
      "getConnectionCluster",
    ]);
    const visible = await addConnection("sweep");
    for (const route of routes) {
      const path = route.path
        .replace(/\{(\w+)\}/g, (_, name: string) =>
          name === "id" && route.path.startsWith("/api/v1/connections") ? String(visible) : "1",
        )
        .replace("/api/v1", "");
      const body = bodies[route.operationId];
      const anonymous = await call(route.method.toUpperCase(), path, undefined, body);
      expect([route.operationId, anonymous.status]).toEqual([route.operationId, 401]);
      expect(await anonymous.json()).toEqual({ error: "Missing or invalid authentication credentials" });
      if (!reads.has(route.operationId)) {
        const refused = await call(route.method.toUpperCase(), path, plain.token, body);
        expect([route.operationId, refused.status]).toEqual([route.operationId, 403]);
        expect(await refused.json()).toEqual({
          error: expect.stringMatching(/^Permission denied|^The default group/),
        });
      }
    }
  });

  it("answers 400 for a malformed id and 404 for an unknown one on every route with a path id", async () => {
    const bodies: Record<string, unknown> = {
      updateClusterGroup: { name: "x" },
      createClusterInGroup: { name: "x" },
      updateCluster: { name: "x" },
      addServerToCluster: { connection_id: 1 },
      setConnectionRelationships: { relationships: [] },
    };
    const malformed: Record<string, string> = {
      id: "abc",
      connectionId: "abc",
      connId: "abc",
      relationshipId: "abc",
    };
    for (const route of [...clusterGroupOperations, ...clusterOperations].filter((r) =>
      r.path.includes("{"),
    )) {
      const method = route.method.toUpperCase();
      const body = bodies[route.operationId];
      for (const param of route.path.match(/\{(\w+)\}/g) ?? []) {
        const name = param.slice(1, -1);
        const path = route.path
          .replace("/api/v1", "")
          .replace(/\{(\w+)\}/g, (_, other: string) => (other === name ? (malformed[name] ?? "abc") : "1"));
        const res = await call(method, path, root.token, body);
        expect([route.operationId, name, res.status]).toEqual([route.operationId, name, 400]);
        expect(await res.json()).toEqual({
          error: expect.stringMatching(/^Invalid (group|cluster|connection|relationship) ID$/),
        });
      }
      const unknown = await call(
        method,
        route.path.replace("/api/v1", "").replace(/\{(\w+)\}/g, "99999"),
        root.token,
        body,
      );
      expect([route.operationId, unknown.status]).toEqual([route.operationId, 404]);
      expect(await unknown.json()).toEqual({ error: expect.stringMatching(/not found/) });
    }
  });

  describe("cluster groups", () => {
    it("seeds the default group, which cannot be deleted", async () => {
      const groups = await api(root).call(listClusterGroups);
      expect(groups).toEqual([
        {
          id: defaultGroupId,
          name: "Servers/Clusters",
          description: "Default group for auto-detected clusters and servers",
          owner_username: null,
          is_shared: true,
          is_default: true,
          auto_group_key: null,
          created_at: timestamp,
          updated_at: timestamp,
        },
      ]);
      const refused = await call("DELETE", `/cluster-groups/${defaultGroupId}`, manager.token);
      expect(await json(refused, 403)).toEqual({ error: "The default group cannot be deleted" });
    });

    it("creates, reads, updates and deletes groups", async () => {
      const created = await api(manager).call(createClusterGroup, {
        body: { name: "Production", description: "Prod" },
      });
      expect(created).toEqual({
        id: expect.any(Number),
        name: "Production",
        description: "Prod",
        owner_username: "manager",
        is_shared: true,
        is_default: false,
        auto_group_key: null,
        created_at: timestamp,
        updated_at: timestamp,
      });
      const { id } = created;
      expect(await api(manager).call(getClusterGroup, { params: { id } })).toEqual(created);
      const updated = await api(manager).call(updateClusterGroup, {
        params: { id },
        body: { name: "Prod EU", description: "EU" },
      });
      expect(updated).toMatchObject({ id, name: "Prod EU", description: "EU" });

      const cluster = await api(manager).call(createClusterInGroup, {
        params: { id },
        body: { name: "eu-main" },
      });
      expect(cluster).toEqual({
        id: expect.any(Number),
        group_id: id,
        name: "eu-main",
        description: null,
        replication_type: null,
        auto_cluster_key: null,
        owner_username: "manager",
        created_at: timestamp,
        updated_at: timestamp,
      });
      expect(await api(manager).call(listGroupClusters, { params: { id } })).toEqual([cluster]);

      expect(await api(manager).call(deleteClusterGroup, { params: { id } })).toBeUndefined();
      expect(await json(await call("GET", `/cluster-groups/${id}`, manager.token), 404)).toEqual({
        error: "Cluster group not found",
      });
      expect(await json(await call("GET", `/clusters/${cluster.id}`, manager.token), 404)).toEqual({
        error: "Cluster not found",
      });
    });

    it("validates, authenticates and authorises", async () => {
      expect(await json(await call("POST", "/cluster-groups", manager.token, { name: " " }), 400)).toEqual({
        error: "Name is required",
      });
      expect(await json(await call("POST", "/cluster-groups", manager.token, {}), 400)).toEqual({
        error: "Name is required",
      });
      expect(
        await json(await call("PUT", `/cluster-groups/${defaultGroupId}`, manager.token, { name: "" }), 400),
      ).toEqual({ error: "Name is required" });
      expect(
        await json(await call("POST", `/cluster-groups/${defaultGroupId}/clusters`, manager.token, {}), 400),
      ).toEqual({ error: "Name is required" });
      expect(await json(await call("GET", "/cluster-groups/abc", manager.token), 400)).toEqual({
        error: "Invalid group ID",
      });
      expect(await json(await call("GET", "/cluster-groups", undefined), 401)).toEqual({
        error: "Missing or invalid authentication credentials",
      });
      expect(await json(await call("POST", "/cluster-groups", plain.token, { name: "x" }), 403)).toEqual({
        error: "Permission denied: requires manage_connections permission",
      });
      expect(await json(await call("GET", "/cluster-groups/99999", manager.token), 404)).toEqual({
        error: "Cluster group not found",
      });
      expect(
        await json(await call("PUT", "/cluster-groups/99999", manager.token, { name: "x" }), 404),
      ).toEqual({
        error: "Cluster group not found",
      });
      expect(await json(await call("DELETE", "/cluster-groups/99999", manager.token), 404)).toEqual({
        error: "Cluster group not found",
      });
      expect(
        await json(await call("POST", "/cluster-groups/99999/clusters", manager.token, { name: "x" }), 404),
      ).toEqual({ error: "Cluster group not found" });
      await api(manager).call(createClusterGroup, { body: { name: "Twice" } });
      expect(
        await json(await call("POST", "/cluster-groups", manager.token, { name: "Twice" }), 409),
      ).toEqual({
        error: "A cluster group with this name already exists",
      });
      // Someone else's group needs manage_connections to change.
      const [other] = await t.datastore.sql<{ id: number }[]>`
        insert into cluster_groups (name, owner_username) values ('Plain''s', 'plain') returning id`;
      const own = await api(plain).call(updateClusterGroup, {
        params: { id: other?.id as number },
        body: { name: "Mine" },
      });
      expect(own).toMatchObject({ name: "Mine", owner_username: "plain" });
      const twice = await api(manager).call(createClusterGroup, { body: { name: "Theirs" } });
      expect(
        await json(await call("PUT", `/cluster-groups/${twice.id}`, plain.token, { name: "y" }), 403),
      ).toEqual({
        error: "Permission denied: requires manage_connections permission",
      });
      expect(await json(await call("DELETE", `/cluster-groups/${twice.id}`, plain.token), 403)).toEqual({
        error: "Permission denied: requires manage_connections permission",
      });
      // A group without anything the caller can see is not found.
      expect(await json(await call("GET", `/cluster-groups/${twice.id}`, plain.token), 404)).toEqual({
        error: "Cluster group not found",
      });
    });
  });

  describe("clusters", () => {
    it("creates, lists, reads, updates and deletes manual clusters", async () => {
      const created = await api(manager).call(createCluster, {
        body: { name: "payments", description: "Payments", replication_type: "binary" },
      });
      expect(created).toEqual({
        id: expect.any(Number),
        group_id: defaultGroupId,
        name: "payments",
        description: "Payments",
        replication_type: "binary",
        auto_cluster_key: null,
        owner_username: "manager",
        created_at: timestamp,
        updated_at: timestamp,
      });
      const { id } = created;
      expect(await api(manager).call(getCluster, { params: { id: String(id) } })).toEqual(created);
      expect(await api(manager).call(getCluster, { params: { id: `cluster-${id}` } })).toEqual(created);
      expect(await api(manager).call(listClustersFlat)).toContainEqual(created);

      expect(await json(await call("PUT", `/clusters/${id}`, manager.token, {}), 400)).toEqual({
        error: "At least name, group_id, description, or replication_type is required",
      });
      expect(
        await json(await call("PUT", `/clusters/${id}`, manager.token, { group_id: 99999 }), 400),
      ).toEqual({
        error: "Cluster group not found",
      });
      const renamed = await api(manager).call(updateCluster, {
        params: { id: String(id) },
        body: { name: "pay" },
      });
      expect(renamed).toMatchObject({ id, name: "pay", description: "Payments" });

      expect(await api(manager).call(deleteCluster, { params: { id: String(id) } })).toBeUndefined();
      expect(await json(await call("DELETE", `/clusters/${id}`, manager.token), 404)).toEqual({
        error: "Cluster not found",
      });
      expect(await json(await call("PUT", `/clusters/${id}`, manager.token, { name: "x" }), 404)).toEqual({
        error: "Cluster not found",
      });
    });

    it("validates, authenticates and authorises", async () => {
      expect(await json(await call("POST", "/clusters", manager.token, { description: "x" }), 400)).toEqual({
        error: "Name is required",
      });
      expect(await json(await call("GET", "/clusters/abc", manager.token), 400)).toEqual({
        error: "Invalid cluster ID",
      });
      expect(
        await json(await call("POST", "/clusters", manager.token, { name: "x", group_id: 99999 }), 400),
      ).toEqual({
        error: "Cluster group not found",
      });
      expect(
        await json(
          await call("PUT", "/clusters/cluster-spock-pg99", manager.token, {
            name: "x",
            auto_cluster_key: "binary:1",
          }),
          400,
        ),
      ).toEqual({ error: "auto_cluster_key does not belong to this cluster" });
      expect(
        await json(await call("PUT", "/clusters/server-99999", manager.token, { name: "x" }), 404),
      ).toEqual({
        error: "Cluster not found",
      });
      expect(await json(await call("GET", "/clusters", undefined), 401)).toEqual({
        error: "Missing or invalid authentication credentials",
      });
      expect(await json(await call("GET", "/clusters/list", "not-a-token"), 401)).toEqual({
        error: "Invalid or unknown token",
      });
      expect(await json(await call("POST", "/clusters", plain.token, { name: "x" }), 403)).toEqual({
        error: "Permission denied: requires manage_connections permission",
      });
      expect(await json(await call("DELETE", "/clusters/1", plain.token), 403)).toEqual({
        error: "Permission denied: requires manage_connections permission",
      });
      expect(await json(await call("GET", "/clusters/99999", manager.token), 404)).toEqual({
        error: "Cluster not found",
      });
    });

    it("dismisses auto-detected clusters by their topology ids, for good (§27 item 53)", async () => {
      const id = await addConnection("solo");
      expect(await api(manager).call(deleteCluster, { params: { id: `server-${id}` } })).toBeUndefined();
      const keys = await t.datastore.sql<{ auto_cluster_key: string; dismissed: boolean }[]>`
        select auto_cluster_key, dismissed from clusters
        where auto_cluster_key in (${`binary:${id}`}, ${`standalone:${id}`}, ${`logical:${id}`})
        order by auto_cluster_key`;
      expect(keys).toEqual([
        { auto_cluster_key: `binary:${id}`, dismissed: true },
        { auto_cluster_key: `logical:${id}`, dismissed: true },
        { auto_cluster_key: `standalone:${id}`, dismissed: true },
      ]);
      const get = await call("GET", `/clusters/server-${id}`, manager.token);
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("PUT, DELETE");
      expect(await get.json()).toEqual({ error: "Method not allowed" });
      const topology = await api(root).call(getClusterTopology);
      expect(topology.flatMap((g) => g.clusters.map((c) => c.id))).not.toContain(`server-${id}`);
      expect(await json(await call("DELETE", "/clusters/server-99999", manager.token), 404)).toEqual({
        error: "Cluster not found",
      });
    });

    it("renames and moves auto-detected clusters (§27 item 54)", async () => {
      const a = await addConnection("pg17-n1");
      const b = await addConnection("pg17-n2");
      // As detection stores a Spock cluster.
      const [spock] = await t.datastore.sql<{ id: number }[]>`
        insert into clusters (auto_cluster_key, name, group_id) values ('spock:pg17', 'pg17 Spock', ${defaultGroupId})
        returning id`;
      await t.datastore.sql`update connections set cluster_id = ${spock?.id ?? 0} where id in (${a}, ${b})`;
      expect(await json(await call("PUT", "/clusters/cluster-spock-pg17", manager.token, {}), 400)).toEqual({
        error: "At least name, description, or group_id is required",
      });
      const renamed = await api(manager).call(updateCluster, {
        params: { id: "cluster-spock-pg17" },
        body: { name: "Prod" },
      });
      expect(renamed).toMatchObject({ id: spock?.id, name: "Prod", auto_cluster_key: "spock:pg17" });
      const topology = await api(root).call(getClusterTopology);
      const cluster = topology.flatMap((g) => g.clusters).find((c) => c.auto_cluster_key === "spock:pg17");
      expect(cluster).toMatchObject({ id: "cluster-spock-pg17", name: "Prod", cluster_type: "spock" });

      // A standalone server becomes a stored cluster once named, and can move groups.
      const solo = await addConnection("lonely");
      const group = await api(manager).call(createClusterGroup, { body: { name: "Edge" } });
      const named = await api(manager).call(updateCluster, {
        params: { id: `server-${solo}` },
        body: { name: "Lonely one", group_id: group.id },
      });
      expect(named).toMatchObject({
        name: "Lonely one",
        group_id: group.id,
        auto_cluster_key: `standalone:${solo}`,
      });
      const after = await api(root).call(getClusterTopology);
      expect(after.find((g) => g.id === `group-${group.id}`)?.clusters).toEqual([
        expect.objectContaining({ id: `server-${solo}`, name: "Lonely one", cluster_type: "server" }),
      ]);
    });
  });

  describe("servers and relationships", () => {
    let clusterId: number;
    let a: number;
    let b: number;
    let outside: number;
    beforeAll(async () => {
      clusterId = (await api(manager).call(createCluster, { body: { name: "rel" } })).id;
      a = await addConnection("rel-a");
      b = await addConnection("rel-b");
      outside = await addConnection("rel-outside");
    });

    it("adds, lists and removes servers (§27 item 58)", async () => {
      expect(
        await json(
          await call("POST", `/clusters/${clusterId}/servers`, manager.token, { connection_id: 0 }),
          400,
        ),
      ).toEqual({ error: "A valid connection_id is required" });
      expect(
        await json(
          await call("POST", `/clusters/${clusterId}/servers`, manager.token, { connection_id: 99999 }),
          404,
        ),
      ).toEqual({ error: "Connection not found" });
      expect(
        await json(await call("POST", "/clusters/99999/servers", manager.token, { connection_id: a }), 404),
      ).toEqual({ error: "Cluster not found" });
      expect(
        await json(
          await call("POST", `/clusters/${clusterId}/servers`, plain.token, { connection_id: a }),
          403,
        ),
      ).toEqual({ error: "Permission denied: requires manage_connections permission" });
      const params = { id: String(clusterId) };
      const added = await api(manager).call(addServerToCluster, {
        params,
        body: { connection_id: a, role: "primary" },
      });
      expect(added).toEqual({ cluster_id: clusterId, connection_id: a, role: "primary" });
      await api(manager).call(addServerToCluster, { params, body: { connection_id: b } });
      expect(await api(manager).call(listClusterServers, { params })).toEqual([
        {
          id: a,
          name: "rel-a",
          host: "rel-a.example.net",
          port: 5432,
          status: "unknown",
          connection_error: null,
          role: "primary",
          membership_source: "manual",
          database_name: "postgres",
          is_monitored: true,
          cluster_id: clusterId,
        },
        expect.objectContaining({ id: b, role: null, membership_source: "manual" }),
      ]);
      expect(await json(await call("GET", "/clusters/99999/servers", manager.token), 404)).toEqual({
        error: "Cluster not found",
      });
      expect(
        await json(await call("DELETE", `/clusters/${clusterId}/servers/${outside}`, manager.token), 404),
      ).toEqual({ error: "Connection not found in this cluster" });
      expect(
        await json(await call("DELETE", `/clusters/${clusterId}/servers/x`, manager.token), 400),
      ).toEqual({
        error: "Invalid connection ID",
      });
    });

    it("sets, lists, clears and deletes relationships (§27 item 57)", async () => {
      const path = `/clusters/${clusterId}/connections/${a}/relationships`;
      expect(
        await json(
          await call("PUT", path, manager.token, {
            relationships: [{ target_connection_id: b, relationship_type: "foo" }],
          }),
          400,
        ),
      ).toEqual({ error: "Invalid relationship type: foo" });
      expect(
        await json(
          await call("PUT", path, manager.token, {
            relationships: [{ target_connection_id: a, relationship_type: "streams_from" }],
          }),
          400,
        ),
      ).toEqual({ error: "Self-relationships are not allowed" });
      expect(
        await json(
          await call("PUT", path, manager.token, {
            relationships: [{ target_connection_id: outside, relationship_type: "streams_from" }],
          }),
          400,
        ),
      ).toEqual({ error: "Target connection does not belong to this cluster" });
      expect(
        await json(
          await call("PUT", `/clusters/${clusterId}/connections/${outside}/relationships`, manager.token, {
            relationships: [],
          }),
          400,
        ),
      ).toEqual({ error: "Source connection does not belong to this cluster" });
      expect(await json(await call("PUT", path, plain.token, { relationships: [] }), 403)).toEqual({
        error: "Permission denied: requires manage_connections permission",
      });
      const params = { id: String(clusterId), connId: a };
      const set = await api(manager).call(setConnectionRelationships, {
        params,
        body: { relationships: [{ target_connection_id: b, relationship_type: "replicates_with" }] },
      });
      expect(set).toEqual([
        {
          id: expect.any(Number),
          cluster_id: clusterId,
          source_connection_id: a,
          target_connection_id: b,
          source_name: "rel-a",
          target_name: "rel-b",
          relationship_type: "replicates_with",
          is_auto_detected: false,
        },
        expect.objectContaining({
          source_connection_id: b,
          target_connection_id: a,
          relationship_type: "replicates_with",
        }),
      ]);
      const cluster = { id: String(clusterId) };
      expect(await api(manager).call(listClusterRelationships, { params: cluster })).toEqual(set);

      const topology = await api(root).call(getClusterTopology);
      const rel = topology.flatMap((g) => g.clusters).find((c) => c.id === `cluster-${clusterId}`);
      expect(rel?.servers.find((s) => s.id === a)?.relationships).toEqual([
        {
          target_server_id: b,
          target_server_name: "rel-b",
          relationship_type: "replicates_with",
          is_auto_detected: false,
        },
      ]);

      // Clearing the source's relationships takes the symmetric reverse as well.
      expect(await api(manager).call(clearConnectionRelationships, { params })).toBeUndefined();
      expect(await api(manager).call(listClusterRelationships, { params: cluster })).toEqual([]);

      const again = await api(manager).call(setConnectionRelationships, {
        params,
        body: { relationships: [{ target_connection_id: b, relationship_type: "streams_from" }] },
      });
      const relationshipId = again[0]?.id;
      expect(
        await json(
          await call("DELETE", `/clusters/${clusterId}/relationships/${relationshipId}`, plain.token),
          403,
        ),
      ).toEqual({ error: "Permission denied: requires manage_connections permission" });
      expect(
        await api(manager).call(deleteClusterRelationship, {
          params: { ...cluster, relationshipId: relationshipId as number },
        }),
      ).toBeUndefined();
      expect(
        await json(
          await call("DELETE", `/clusters/${clusterId}/relationships/${relationshipId}`, manager.token),
          404,
        ),
      ).toEqual({ error: "Relationship not found" });
      expect(await json(await call("GET", "/clusters/99999/relationships", manager.token), 404)).toEqual({
        error: "Cluster not found",
      });
      expect(
        await json(
          await call("DELETE", `/clusters/99999/connections/${a}/relationships`, manager.token),
          404,
        ),
      ).toEqual({ error: "Cluster not found" });
    });
  });

  describe("topology and visibility", () => {
    it("shows a user only the clusters and servers it can see, with exact shapes and alert counts", async () => {
      const shared = await addConnection("shared-one");
      const hidden = await addConnection("hidden-one", { shared: false });
      const cluster = await api(manager).call(createCluster, { body: { name: "mixed" } });
      const params = { id: String(cluster.id) };
      for (const connectionId of [shared, hidden]) {
        await api(manager).call(addServerToCluster, { params, body: { connection_id: connectionId } });
      }
      await t.datastore.sql`insert into alerts (alert_type, connection_id, status, severity, title)
        values ('threshold', ${shared}, 'active', 'warning', 'a'), ('threshold', ${shared}, 'active', 'critical', 'b'),
               ('threshold', ${shared}, 'cleared', 'warning', 'c')`;
      await t.datastore
        .sql`update connections set connection_error = 'connection error: refused' where id = ${shared}`;

      const topology = await api(plain).call(getClusterTopology);
      const everyServer = topology.flatMap((g) =>
        g.clusters.flatMap((c) => c.servers.map((server) => server.id)),
      );
      expect(everyServer).toContain(shared);
      expect(everyServer).not.toContain(hidden);
      const defaultGroup = topology.find((group) => group.id === `group-${defaultGroupId}`);
      expect({
        ...defaultGroup,
        clusters: defaultGroup?.clusters.filter((c) => c.id === `cluster-${cluster.id}`),
      }).toEqual({
        id: `group-${defaultGroupId}`,
        name: "Servers/Clusters",
        description: "Default group for auto-detected clusters and servers",
        is_default: true,
        auto_group_key: null,
        clusters: [
          {
            id: `cluster-${cluster.id}`,
            name: "mixed",
            description: null,
            cluster_type: "manual",
            replication_type: null,
            auto_cluster_key: null,
            servers: [
              {
                id: shared,
                name: "shared-one",
                description: "",
                host: "shared-one.example.net",
                port: 5432,
                status: "offline",
                connection_error: "connection error: refused",
                active_alert_count: 2,
                role: null,
                primary_role: "unknown",
                is_expandable: false,
                membership_source: "manual",
                owner_username: "root",
                version: null,
                os: null,
                platform: null,
                spock_node_name: null,
                spock_version: null,
                database_name: "postgres",
                username: "postgres",
                children: [],
                relationships: [],
              },
            ],
          },
        ],
      });
      expect(await api(plain).call(listClusterServers, { params })).toEqual([
        expect.objectContaining({ id: shared, status: "offline" }),
      ]);
      expect(await api(plain).call(listClustersFlat)).toContainEqual(
        expect.objectContaining({ id: cluster.id, name: "mixed" }),
      );
      expect(await api(plain).call(getClusterGroup, { params: { id: defaultGroupId } })).toMatchObject({
        id: defaultGroupId,
      });
      const groups = await api(plain).call(listClusterGroups);
      expect(groups.map((g) => g.id)).toContain(defaultGroupId);
      await t.datastore.sql`delete from alerts`;
    });
  });

  describe("server hierarchy", () => {
    it("nests standbys under the server they stream from, and lifts them when that one is hidden", async () => {
      const primary = await addConnection("tree-primary", { shared: false });
      const standby = await addConnection("tree-standby");
      const cascade = await addConnection("tree-cascade");
      const cluster = await api(root).call(createCluster, { body: { name: "tree" } });
      const id = String(cluster.id);
      for (const connectionId of [primary, standby, cascade]) {
        await api(root).call(addServerToCluster, { params: { id }, body: { connection_id: connectionId } });
      }
      for (const [source, target] of [
        [standby, primary],
        [cascade, standby],
      ] as const) {
        await api(root).call(setConnectionRelationships, {
          params: { id, connId: source },
          body: { relationships: [{ target_connection_id: target, relationship_type: "streams_from" }] },
        });
      }
      const shape = (server: { name: string; is_expandable: boolean; children: unknown[] }): unknown => ({
        name: server.name,
        is_expandable: server.is_expandable,
        children: (server.children as (typeof server)[]).map(shape),
      });
      const treeOf = async (user: TestUser) => {
        const topology = await api(user).call(getClusterTopology);
        return topology
          .flatMap((g) => g.clusters)
          .find((c) => c.id === `cluster-${cluster.id}`)
          ?.servers.map(shape);
      };
      expect(await treeOf(root)).toEqual([
        {
          name: "tree-primary",
          is_expandable: true,
          children: [
            {
              name: "tree-standby",
              is_expandable: true,
              children: [{ name: "tree-cascade", is_expandable: false, children: [] }],
            },
          ],
        },
      ]);
      expect(await treeOf(plain)).toEqual([
        {
          name: "tree-standby",
          is_expandable: true,
          children: [{ name: "tree-cascade", is_expandable: false, children: [] }],
        },
      ]);
    });
  });

  describe("a connection's cluster", () => {
    it("reads and changes the membership of a connection", async () => {
      const id = await addConnection("member");
      const cluster = await api(manager).call(createCluster, { body: { name: "home" } });
      const before = await api(manager).call(getConnectionCluster, { params: { id } });
      expect(before).toEqual({
        info: {
          cluster_id: null,
          role: null,
          membership_source: "auto",
          cluster_name: null,
          replication_type: null,
          auto_cluster_key: null,
        },
        clusters: expect.arrayContaining([
          { id: cluster.id, name: "home", replication_type: null, auto_cluster_key: null },
        ]),
        relationships: [],
      });
      const placed = await api(manager).call(updateConnectionCluster, {
        params: { id },
        body: { cluster_id: cluster.id, role: "primary", membership_source: "manual" },
      });
      expect(placed).toEqual({
        cluster_id: cluster.id,
        role: "primary",
        membership_source: "manual",
        cluster_name: "home",
        replication_type: null,
        auto_cluster_key: null,
      });
      const reset = await api(manager).call(updateConnectionCluster, {
        params: { id },
        body: { cluster_id: null },
      });
      expect(reset).toMatchObject({ cluster_id: null, membership_source: "auto" });

      expect(
        await json(
          await call("PUT", `/connections/${id}/cluster`, manager.token, { cluster_id: 99999 }),
          404,
        ),
      ).toEqual({ error: "Cluster not found" });
      expect(
        await json(
          await call("PUT", `/connections/${id}/cluster`, manager.token, {
            cluster_id: null,
            membership_source: "x",
          }),
          400,
        ),
      ).toEqual({ error: "membership_source must be auto or manual" });
      expect(await json(await call("GET", "/connections/abc/cluster", manager.token), 400)).toEqual({
        error: "Invalid connection ID",
      });
      expect(await json(await call("GET", `/connections/${id}/cluster`, undefined), 401)).toEqual({
        error: "Missing or invalid authentication credentials",
      });
      const unshared = await addConnection("unshared", { shared: false });
      expect(await json(await call("GET", `/connections/${unshared}/cluster`, plain.token), 403)).toEqual({
        error: "Permission denied: you do not have access to this connection",
      });
      expect(
        await json(await call("PUT", `/connections/${id}/cluster`, plain.token, { cluster_id: null }), 403),
      ).toEqual({ error: "Permission denied: requires manage_connections permission" });
      // Known to the authorisation layer but gone from the datastore.
      t.connections.push({ id: 99998, ownerUsername: "root", isShared: true });
      expect(await json(await call("GET", "/connections/99998/cluster", root.token), 404)).toEqual({
        error: "Connection not found",
      });
    });
  });
});
