import {
  getClusterGroupHealth,
  getClusterHealth,
  getConnectionHealth,
  getEstateHealth,
} from "@dbmon/contract";
import { HEALTH_CHECKS } from "@dbmon/monitoring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addConnection } from "./monitoring-support.js";
import {
  buildTestApp,
  callBridgeTool,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

/*
 * The health endpoints on stored results (what the alerter's pass writes; health-checks.test.ts
 * has them written from real collections): bodies, aggregation, visibility and refusals.
 */

const EVALUATED_AT = "2026-11-27T10:00:00.000Z";
const CHANGED_AT = "2026-11-27T09:30:00.000Z";

describe("health endpoints", () => {
  let t: TestApp;
  let root: TestUser;
  let viewer: TestUser;
  /** Shared, in cluster 41 (group `prod`): a critical sequence. */
  let shared: number;
  /** Private to admin, in cluster 41 too: an invalid index; the viewer never sees it. */
  let hidden: number;
  /** Shared, in no cluster, never evaluated. */
  let fresh: number;
  /** Cluster 42 holds only the hidden connection. */
  let groupId: number;

  async function store(connectionId: number, results: Record<string, [string, number | null, unknown[]]>) {
    for (const check of HEALTH_CHECKS) {
      const [status, value, findings] = results[check.name] ?? ["ok", 0, []];
      await t.datastore.sql`
        insert into health_check_status
          (connection_id, check_name, status, known_status, value, findings, changed_at)
        values (${connectionId}, ${check.name}, ${status}, ${status}, ${value}, ${JSON.stringify(findings)}::jsonb,
          ${CHANGED_AT})`;
    }
    await t.datastore.sql`
      insert into health_check_evaluations (connection_id, evaluated_at) values (${connectionId}, ${EVALUATED_AT})`;
  }

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    viewer = await createUser(t, "viewer");
    shared = await addConnection(t, "orders-db", { shared: true, clusterId: 41 });
    hidden = await addConnection(t, "payroll-db", { clusterId: 41 });
    fresh = await addConnection(t, "new-db", { shared: true });
    await addConnection(t, "payroll-replica", { clusterId: 42 }).then(
      (id) => t.datastore.sql`update connections set cluster_id = 42 where id = ${id}`,
    );
    const [group] = await t.datastore.sql<{ id: number }[]>`
      insert into cluster_groups (name) values ('prod') returning id`;
    groupId = group?.id as number;
    await t.datastore.sql`update clusters set group_id = ${groupId} where id = 41`;
    await store(shared, {
      sequences: [
        "critical",
        92.5,
        [{ database: "shop", schema: "public", name: "tickets", used_percent: 92.5 }],
      ],
    });
    await store(hidden, { invalid_indexes: ["warning", 1, [{ database: "hr", name: "salaries_idx" }]] });
  });
  afterAll(() => t?.close());

  it("answers every check of a connection with its status, value, thresholds and remedy", async () => {
    const body = await typedClient(t, viewer.token).call(getConnectionHealth, { params: { id: shared } });
    expect(Object.keys(body).sort()).toEqual([
      "checks",
      "connection_id",
      "connection_name",
      "evaluated_at",
      "status",
    ]);
    expect(body).toMatchObject({
      connection_id: shared,
      connection_name: "orders-db",
      status: "critical",
      evaluated_at: EVALUATED_AT,
    });
    expect(body.checks.map((check) => check.name)).toEqual(HEALTH_CHECKS.map((check) => check.name));
    expect(body.checks.find((check) => check.name === "sequences")).toEqual({
      name: "sequences",
      title: "Sequences near exhaustion",
      category: "sequences",
      status: "critical",
      value: 92.5,
      unit: "percent",
      measures: "Highest share of its range a non-cycling sequence has handed out",
      threshold: { warning: 75, critical: 90, direction: "above" },
      remedy: expect.stringContaining("bigint"),
      findings: [{ database: "shop", schema: "public", name: "tickets", used_percent: 92.5 }],
      evaluated_at: EVALUATED_AT,
      changed_at: CHANGED_AT,
    });
    expect(body.checks.find((check) => check.name === "cache_hit")?.threshold).toEqual({
      warning: 95,
      critical: 90,
      direction: "below",
    });
  });

  it("answers unknown for a connection never evaluated", async () => {
    const body = await typedClient(t, viewer.token).call(getConnectionHealth, { params: { id: fresh } });
    expect(body.status).toBe("unknown");
    expect(body.evaluated_at).toBeNull();
    expect(new Set(body.checks.map((check) => check.status))).toEqual(new Set(["unknown"]));
    expect(body.checks[0]).toMatchObject({ value: null, findings: [], evaluated_at: null, changed_at: null });
  });

  it("aggregates the estate over the connections the caller sees only", async () => {
    const all = await typedClient(t, root.token).call(getEstateHealth, {});
    expect(all).toMatchObject({
      scope: "estate",
      scope_id: null,
      status: "critical",
      connection_count: 4,
      status_counts: { ok: 0, warning: 1, critical: 1, unknown: 2 },
    });
    expect(all.connections.map((connection) => connection.connection_name)).toEqual([
      "orders-db",
      "payroll-db",
      "new-db",
      "payroll-replica",
    ]);
    const mine = await typedClient(t, viewer.token).call(getEstateHealth, {});
    expect(mine).toEqual({
      scope: "estate",
      scope_id: null,
      status: "critical",
      connection_count: 2,
      status_counts: { ok: 0, warning: 0, critical: 1, unknown: 1 },
      checks: HEALTH_CHECKS.map((check) => ({
        name: check.name,
        title: check.title,
        ok: check.name === "sequences" ? 0 : 1,
        warning: 0,
        critical: check.name === "sequences" ? 1 : 0,
        unknown: 1,
      })),
      connections: [
        {
          connection_id: shared,
          connection_name: "orders-db",
          status: "critical",
          critical_checks: ["sequences"],
          warning_checks: [],
          evaluated_at: EVALUATED_AT,
        },
        {
          connection_id: fresh,
          connection_name: "new-db",
          status: "unknown",
          critical_checks: [],
          warning_checks: [],
          evaluated_at: null,
        },
      ],
    });
    expect(JSON.stringify(mine)).not.toContain("payroll");
  });

  it("aggregates a cluster and a group, without the connections the caller cannot see", async () => {
    const cluster = await typedClient(t, viewer.token).call(getClusterHealth, { params: { id: "41" } });
    expect(cluster).toMatchObject({
      scope: "cluster",
      scope_id: 41,
      connection_count: 1,
      status: "critical",
    });
    expect(cluster.connections.map((connection) => connection.connection_id)).toEqual([shared]);
    const asRoot = await typedClient(t, root.token).call(getClusterHealth, { params: { id: "41" } });
    expect(
      asRoot.connections.map((connection) => [connection.connection_name, connection.warning_checks]),
    ).toEqual([
      ["orders-db", []],
      ["payroll-db", ["invalid_indexes"]],
    ]);
    const group = await typedClient(t, viewer.token).call(getClusterGroupHealth, { params: { id: groupId } });
    expect(group).toMatchObject({ scope: "group", scope_id: groupId, connection_count: 1 });
    const groupAsRoot = await typedClient(t, root.token).call(getClusterGroupHealth, {
      params: { id: groupId },
    });
    expect(groupAsRoot.status_counts).toEqual({ ok: 0, warning: 1, critical: 1, unknown: 0 });
  });

  it("refuses malformed ids, missing tokens, callers without access, and what does not exist or is hidden", async () => {
    const cases: [string, string | undefined, number, string][] = [
      ["/api/v1/connections/abc/health", root.token, 400, "Invalid connection ID"],
      ["/api/v1/connections/4294967296/health", root.token, 400, "Invalid connection ID"],
      ["/api/v1/clusters/abc/health", root.token, 400, "Invalid cluster ID"],
      ["/api/v1/cluster-groups/abc/health", root.token, 400, "Invalid group ID"],
      [
        `/api/v1/connections/${shared}/health`,
        undefined,
        401,
        "Missing or invalid authentication credentials",
      ],
      ["/api/v1/clusters/41/health", undefined, 401, "Missing or invalid authentication credentials"],
      [
        `/api/v1/cluster-groups/${groupId}/health`,
        undefined,
        401,
        "Missing or invalid authentication credentials",
      ],
      ["/api/v1/health", undefined, 401, "Missing or invalid authentication credentials"],
      ["/api/v1/health", "forged-token", 401, "Invalid or unknown token"],
      [
        `/api/v1/connections/${hidden}/health`,
        viewer.token,
        403,
        "Permission denied: you do not have access to this connection",
      ],
      ["/api/v1/connections/9999/health", root.token, 404, "Connection not found"],
      ["/api/v1/clusters/9999/health", root.token, 404, "Cluster not found"],
      ["/api/v1/clusters/42/health", viewer.token, 404, "Cluster not found"],
      ["/api/v1/cluster-groups/9999/health", root.token, 404, "Cluster group not found"],
    ];
    for (const [path, token, status, error] of cases) {
      const res = await requestJson(t.app, path, token ? { token } : {});
      expect(res.status, path).toBe(status);
      expect(await res.json(), path).toEqual({ error });
    }
  });

  it("answers analyze_db_health from the same service: a connection in detail, the estate, a cluster, as the caller sees them", async () => {
    const group = await t.services.auth.groups.create("health-tool-users", "");
    await t.services.auth.groups.addMember(group.id, { userId: viewer.id });
    await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/mcp`, {
      method: "PUT",
      token: root.token,
      body: { privileges: ["analyze_db_health"] },
    });
    const textOf = (result: { content: { text: string }[] }) =>
      result.content.map((part) => part.text).join("\n");
    const connection = await callBridgeTool(t, viewer.token, "analyze_db_health", { connection_id: shared });
    expect(connection.isError).toBeUndefined();
    const [summary, header, ...lines] = textOf(connection).split("\n");
    expect(summary).toBe(`Connection ${shared} (orders-db): critical, evaluated at ${EVALUATED_AT}`);
    expect(header).toBe("check\tstatus\tvalue\tunit\twarning_at\tcritical_at\tfindings\tremedy");
    expect(lines).toHaveLength(HEALTH_CHECKS.length);
    const sequences = lines.find((line) => line.startsWith("sequences\t"))?.split("\t");
    expect(sequences?.slice(0, 6)).toEqual(["sequences", "critical", "92.5", "percent", ">= 75", ">= 90"]);
    expect(sequences?.[7]).toContain("bigint");
    expect(
      lines
        .find((line) => line.startsWith("xid_age\t"))
        ?.split("\t")
        .at(-1),
    ).toBe("NULL");

    const estate = textOf(await callBridgeTool(t, viewer.token, "analyze_db_health"));
    expect(estate.split("\n")[0]).toBe(
      "Estate: critical; 2 connections: 1 critical, 0 warning, 1 unknown, 0 ok",
    );
    expect(estate).not.toContain("payroll");
    const cluster = textOf(await callBridgeTool(t, root.token, "analyze_db_health", { cluster_id: 41 }));
    expect(cluster.split("\n")[0]).toBe(
      "Cluster 41: critical; 2 connections: 1 critical, 1 warning, 0 unknown, 0 ok",
    );

    const hiddenOne = await callBridgeTool(t, viewer.token, "analyze_db_health", { connection_id: hidden });
    expect(hiddenOne).toMatchObject({ isError: true });
    expect(textOf(hiddenOne)).toContain("do not have access");
    const hiddenCluster = await callBridgeTool(t, viewer.token, "analyze_db_health", { cluster_id: 42 });
    expect(hiddenCluster).toMatchObject({ isError: true, content: [{ text: "Cluster not found" }] });
  });
});
