import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeRegistry, type RunningCollector, startCollector } from "@dbmon/collector";
import {
  addServerToCluster,
  createCluster,
  deleteCluster,
  getClusterTopology,
  updateCluster,
} from "@dbmon/contract";
import { encryptSecret, loadSecretKey, type SecretKey } from "@dbmon/datastore";
import {
  execStatements,
  machinePostgresAvailable,
  machinePostgresBinariesAvailable,
  startPrimary,
  startStandby,
  type TestServer,
} from "@dbmon/datastore/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, type TestApp, type TestUser, typedClient } from "./support.js";

// Stands in for the Spock extension: the catalog tables pg_node_role reads.
const SPOCK_STAND_IN = (nodeId: number, name: string) => [
  "create schema spock",
  "create table spock.node (node_id oid primary key, node_name name not null)",
  "create table spock.local_node (node_id oid primary key, node_local_interface oid)",
  "create table spock.subscription (sub_id oid primary key, sub_name name, sub_enabled boolean)",
  `insert into spock.node values (${nodeId}, '${name}'), (${nodeId + 1}, 'peer')`,
  `insert into spock.local_node values (${nodeId}, 0)`,
  "insert into spock.subscription values (1, 'to_peer', true)",
];

const EXPECTED_ROLES = {
  "app-primary": "binary_primary",
  "app-standby": "binary_standby",
  "shop-publisher": "logical_publisher",
  "shop-subscriber": "logical_subscriber",
  "pgx-n1": "spock_node",
  "pgx-n2": "spock_node",
};

/**
 * Real replication: a primary with a streaming standby and a logical publisher with a subscriber
 * (PostgreSQL 15 servers of this file's own), and two Spock stand-ins; the collector runs and
 * auto-detection must find the clusters, roles and relationships.
 */
// Runs the machine's PostgreSQL 15 binaries and monitors its server (CI has both); a machine with
// only Node.js skips this file.
const machinePostgres = machinePostgresBinariesAvailable() && (await machinePostgresAvailable());

describe.skipIf(!machinePostgres)("cluster auto-detection from collected data", () => {
  let t: TestApp;
  let root: TestUser;
  let dataDir: string;
  let secretKey: SecretKey;
  let collector: RunningCollector | undefined;
  const servers: TestServer[] = [];
  const spockDatabases: string[] = [];
  const ids: Record<string, number> = {};
  let primary: TestServer;
  let standby: TestServer;
  let publisher: TestServer;
  let subscriber: TestServer;

  async function addConnection(name: string, port: number, database = "postgres") {
    const [row] = await t.datastore.sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, password_encrypted, sslmode,
        owner_username, is_shared)
      values (${name}, '127.0.0.1', ${port}, ${database}, 'postgres', ${encryptSecret(secretKey, "trust")},
        'disable', 'root', true)
      returning id`;
    const id = row?.id ?? 0;
    t.connections.push({ id, ownerUsername: "root", isShared: true });
    ids[name] = id;
    return id;
  }

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    dataDir = await mkdtemp(join(tmpdir(), "dbmon-detect-"));
    secretKey = await loadSecretKey({ dataDir });

    let spockServer: TestServer;
    [primary, publisher, subscriber, spockServer] = await Promise.all([
      startPrimary("replica"),
      startPrimary("logical"),
      startPrimary("replica"),
      startPrimary("replica"),
    ]);
    servers.push(primary, publisher, subscriber, spockServer);
    standby = await startStandby(primary);
    servers.push(standby);

    await execStatements(
      publisher.url,
      "create table items (id int primary key)",
      "create publication items_pub for table items",
    );
    await execStatements(
      subscriber.url,
      "create table items (id int primary key)",
      `create subscription items_sub connection 'host=127.0.0.1 port=${publisher.port} dbname=postgres user=postgres' publication items_pub`,
    );
    // Two Spock nodes, as databases on a server of their own: server-wide facts (replication slots,
    // publications of other test files) on the shared test server must not change their roles.
    for (const [index, node] of ["n1", "n2"].entries()) {
      const name = `spock_${node}`;
      await execStatements(spockServer.url, `create database "${name}"`);
      spockDatabases.push(name);
      await execStatements(spockServer.urlOf(name), ...SPOCK_STAND_IN(1000 + 10 * index, node));
    }
    const serverPort = spockServer.port;

    await addConnection("app-primary", primary.port);
    await addConnection("app-standby", standby.port);
    await addConnection("shop-publisher", publisher.port);
    await addConnection("shop-subscriber", subscriber.port);
    await addConnection("pgx-n1", serverPort, spockDatabases[0]);
    await addConnection("pgx-n2", serverPort, spockDatabases[1]);

    collector = await startCollector({
      datastore: t.datastore,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      secretKey,
      probes: probeRegistry.filter((probe) => ["pg_node_role", "pg_server_info"].includes(probe.name)),
      intervalOverrides: { pg_node_role: 1 },
      topologySeconds: 0,
    });
  }, 180_000);

  afterAll(async () => {
    // Every step runs even when an earlier one fails: no server may outlive the file.
    const steps: (() => unknown)[] = [
      () => collector?.stop(),
      () => Promise.all(servers.map((server) => server.remove())),
      () => t?.close(),
      () => rm(dataDir, { recursive: true, force: true }),
    ];
    const failures: unknown[] = [];
    for (const step of steps) {
      await Promise.resolve()
        .then(step)
        .catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) {
      throw failures[0];
    }
  }, 120_000);

  const topology = async () =>
    (await typedClient(t, root.token).call(getClusterTopology)).flatMap((group) => group.clusters);

  /** Collects and detects until the expected four clusters stand (the subscription needs a moment). */
  async function detected(): Promise<Awaited<ReturnType<typeof topology>>> {
    const until = Date.now() + 90_000;
    for (;;) {
      await collector?.detectTopology();
      const clusters = await topology();
      const keys = clusters.map((cluster) => cluster.auto_cluster_key);
      const roles = new Map(
        clusters.flatMap((cluster) =>
          cluster.servers
            .flatMap((server) => [server, ...server.children])
            .map((server) => [server.name, server.primary_role]),
        ),
      );
      // Roles settle once streaming and the subscription's slot are active on every node.
      const ready =
        keys.includes(`binary:${ids["app-primary"]}`) &&
        keys.includes(`logical:${ids["shop-publisher"]}`) &&
        keys.includes("spock:pgx") &&
        Object.entries(EXPECTED_ROLES).every(([name, role]) => roles.get(name) === role);
      if (ready || Date.now() > until) {
        return clusters;
      }
      await new Promise((done) => setTimeout(done, 500));
    }
  }

  it("finds the physical, logical and Spock clusters with their roles and relationships", {
    timeout: 120_000,
  }, async () => {
    const clusters = await detected();
    const byKey = (key: string) => clusters.find((cluster) => cluster.auto_cluster_key === key);

    const binary = byKey(`binary:${ids["app-primary"]}`);
    expect(binary).toMatchObject({
      id: `server-${ids["app-primary"]}`,
      name: "app-primary",
      cluster_type: "binary",
    });
    expect(binary?.servers).toHaveLength(1);
    const top = binary?.servers[0];
    expect(top).toMatchObject({
      id: ids["app-primary"],
      primary_role: "binary_primary",
      role: "binary_primary",
      status: "online",
      is_expandable: true,
      relationships: [],
    });
    expect(top?.children).toEqual([
      expect.objectContaining({
        id: ids["app-standby"],
        primary_role: "binary_standby",
        role: "binary_standby",
        children: [],
        relationships: [
          {
            target_server_id: ids["app-primary"],
            target_server_name: "app-primary",
            relationship_type: "streams_from",
            is_auto_detected: true,
          },
        ],
      }),
    ]);

    const logical = byKey(`logical:${ids["shop-publisher"]}`);
    expect(logical).toMatchObject({ id: `server-${ids["shop-publisher"]}`, cluster_type: "logical" });
    expect(logical?.servers.map((server) => [server.name, server.primary_role])).toEqual([
      ["shop-publisher", "logical_publisher"],
      ["shop-subscriber", "logical_subscriber"],
    ]);
    expect(logical?.servers[1]?.relationships).toEqual([
      {
        target_server_id: ids["shop-publisher"],
        target_server_name: "shop-publisher",
        relationship_type: "subscribes_to",
        is_auto_detected: true,
      },
    ]);

    const spock = byKey("spock:pgx");
    expect(spock).toMatchObject({ id: "cluster-spock-pgx", name: "pgx Spock", cluster_type: "spock" });
    expect(
      spock?.servers.map((server) => [server.name, server.primary_role, server.spock_node_name]),
    ).toEqual([
      ["pgx-n1", "spock_node", "n1"],
      ["pgx-n2", "spock_node", "n2"],
    ]);
    expect(spock?.servers[0]?.relationships).toEqual([
      expect.objectContaining({ target_server_id: ids["pgx-n2"], relationship_type: "replicates_with" }),
    ]);
    expect(spock?.servers[1]?.relationships).toEqual([
      expect.objectContaining({ target_server_id: ids["pgx-n1"], relationship_type: "replicates_with" }),
    ]);

    // The node role as collected.
    const [role] = await t.datastore.sql<Record<string, unknown>[]>`
      select is_in_recovery, is_streaming_standby, upstream_host, upstream_port, primary_role, role_flags
      from metrics.pg_node_role where connection_id = ${ids["app-standby"] ?? 0}
      order by collected_at desc limit 1`;
    expect(role).toEqual({
      is_in_recovery: true,
      is_streaming_standby: true,
      upstream_host: "127.0.0.1",
      upstream_port: primary.port,
      primary_role: "binary_standby",
      role_flags: ["binary_standby"],
    });
    const [subscriberRole] = await t.datastore.sql<Record<string, unknown>[]>`
      select publisher_host, publisher_port, subscription_count, role_details
      from metrics.pg_node_role where connection_id = ${ids["shop-subscriber"] ?? 0}
      order by collected_at desc limit 1`;
    expect(subscriberRole).toEqual({
      publisher_host: "127.0.0.1",
      publisher_port: publisher.port,
      subscription_count: 1,
      role_details: { logical: { publications: 0, subscriptions: 1 } },
    });
  });

  it("keeps renames and dismissals across detections, and leaves manual placements alone", async () => {
    const api = typedClient(t, root.token);
    await api.call(updateCluster, { params: { id: "cluster-spock-pgx" }, body: { name: "Spock prod" } });
    await api.call(deleteCluster, { params: { id: `server-${ids["shop-publisher"]}` } });
    const manualId = (await api.call(createCluster, { body: { name: "by hand" } })).id;
    await api.call(addServerToCluster, {
      params: { id: String(manualId) },
      body: { connection_id: ids["pgx-n2"] as number },
    });

    expect(await collector?.detectTopology()).toBe(true);
    const clusters = await topology();
    expect(clusters.map((cluster) => cluster.auto_cluster_key)).not.toContain(
      `logical:${ids["shop-publisher"]}`,
    );
    const spock = clusters.find((cluster) => cluster.auto_cluster_key === "spock:pgx");
    expect(spock?.name).toBe("Spock prod");
    expect(spock?.servers.map((server) => server.name)).toEqual(["pgx-n1"]);
    expect(
      clusters.find((cluster) => cluster.id === `cluster-${manualId}`)?.servers.map((s) => s.name),
    ).toEqual(["pgx-n2"]);
  });
});
