import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "./support.js";

/**
 * Alert, channel and probe overrides, and blackouts, answer a scope that does not exist as they
 * answer one the caller cannot see: not found, for every verb, superusers included.
 */
describe("a scope that does not exist", () => {
  let t: TestApp;
  let root: TestUser;
  let ruleId: number;

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    const [rule] = await t.datastore.sql<{ id: number }[]>`select id from alert_rules order by id limit 1`;
    ruleId = rule?.id as number;
    await t.datastore.sql`
      insert into probe_configs (name, description, collection_interval_seconds, retention_days, is_enabled, scope, scope_id)
      values ('pg_stat_database', 'test default', 60, 7, true, 'global', 0)
      on conflict do nothing`;
  });
  afterAll(async () => t.close());

  const call = (method: string, path: string, body?: unknown) =>
    requestJson(t.app, path, { method, token: root.token, ...(body === undefined ? {} : { body }) });

  it.each(["server", "cluster", "group"])(
    "is not found by a superuser, %s scope, for each override kind",
    async (scope) => {
      const id = 987_654;
      const requests: [string, string, unknown, string][] = [
        ["GET", `/api/v1/alert-overrides/${scope}/${id}`, undefined, "Alert override scope not found"],
        [
          "PUT",
          `/api/v1/alert-overrides/${scope}/${id}/${ruleId}`,
          { operator: ">", threshold: 1, severity: "warning", enabled: true },
          "Alert override scope not found",
        ],
        [
          "DELETE",
          `/api/v1/alert-overrides/${scope}/${id}/${ruleId}`,
          undefined,
          "Alert override scope not found",
        ],
        ["GET", `/api/v1/channel-overrides/${scope}/${id}`, undefined, "Channel override scope not found"],
        [
          "PUT",
          `/api/v1/channel-overrides/${scope}/${id}/1`,
          { enabled: false },
          "Channel override scope not found",
        ],
        [
          "DELETE",
          `/api/v1/channel-overrides/${scope}/${id}/1`,
          undefined,
          "Channel override scope not found",
        ],
        ["GET", `/api/v1/probe-overrides/${scope}/${id}`, undefined, "Probe override scope not found"],
        [
          "DELETE",
          `/api/v1/probe-overrides/${scope}/${id}/pg_stat_database`,
          undefined,
          "Probe override scope not found",
        ],
      ];
      for (const [method, path, body, error] of requests) {
        const res = await call(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(await res.json(), `${method} ${path}`).toEqual({ error });
      }
    },
  );

  it("is not found for a blackout either, superusers included", async () => {
    for (const [scope, field] of [
      ["cluster", "cluster_id"],
      ["group", "group_id"],
      ["server", "connection_id"],
    ] as const) {
      const res = await call("POST", "/api/v1/blackouts", {
        scope,
        [field]: 987_654,
        reason: "maintenance",
        start_time: new Date().toISOString(),
        end_time: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect(res.status, scope).toBe(404);
    }
  });
});

/**
 * What may be changed on a scope: only one all of whose connections the caller sees. A manager who
 * sees one server of a cluster reads the cluster's settings and windows, but neither silences nor
 * re-tunes the alerting of the server hidden from it (403); on a cluster it sees whole, it may.
 */
describe("a scope holding connections hidden from the caller", () => {
  let t: TestApp;
  let root: TestUser;
  let manager: TestUser;
  let ruleId: number;
  let channelId: number;
  let mixedCluster: number;
  let ownCluster: number;
  let mixedGroup: number;

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    manager = await createUser(t, "manager", {
      permissions: [
        "manage_blackouts",
        "manage_alert_rules",
        "manage_notification_channels",
        "manage_probes",
      ],
    });
    const [rule] = await t.datastore.sql<{ id: number }[]>`select id from alert_rules order by id limit 1`;
    ruleId = rule?.id as number;
    const [channel] = await t.datastore.sql<{ id: number }[]>`
      insert into notification_channels (channel_type, name, webhook_url_encrypted)
      values ('webhook', 'hook', 'x') returning id`;
    channelId = channel?.id as number;
    await t.datastore.sql`
      insert into probe_configs (name, description, collection_interval_seconds, retention_days, is_enabled, scope, scope_id)
      values ('pg_stat_database', 'test default', 60, 7, true, 'global', 0)
      on conflict do nothing`;
    const [group] = await t.datastore.sql<{ id: number }[]>`
      insert into cluster_groups (name) values ('fleet') returning id`;
    mixedGroup = group?.id as number;
    const clusters = await t.datastore.sql<{ id: number }[]>`
      insert into clusters (name, group_id) values ('shared', ${mixedGroup}), ('own', null) returning id`;
    mixedCluster = clusters[0]?.id as number;
    ownCluster = clusters[1]?.id as number;
    await t.datastore.sql`
      insert into connections (name, host, port, database_name, username, owner_username, is_shared, cluster_id)
      values ('mine', '127.0.0.1', 5432, 'postgres', 'postgres', 'manager', false, ${mixedCluster}),
        ('theirs', '127.0.0.1', 5433, 'postgres', 'postgres', 'root', false, ${mixedCluster}),
        ('mine too', '127.0.0.1', 5434, 'postgres', 'postgres', 'manager', false, ${ownCluster})`;
  });
  afterAll(async () => t.close());

  const call = (user: TestUser, method: string, path: string, body?: unknown) =>
    requestJson(t.app, path, { method, token: user.token, ...(body === undefined ? {} : { body }) });
  const refusal = (scope: string) => ({
    error: `Permission denied: the ${scope} holds connections you cannot see, so it cannot be changed`,
  });
  const window = () => ({
    reason: "maintenance",
    start_time: new Date().toISOString(),
    end_time: new Date(Date.now() + 3_600_000).toISOString(),
  });

  it("refuses a blackout or schedule there, on its group and on the estate; a superuser may", async () => {
    for (const [scope, ids] of [
      ["cluster", { cluster_id: mixedCluster }],
      ["group", { group_id: mixedGroup }],
      ["estate", {}],
    ] as const) {
      const blackout = await call(manager, "POST", "/api/v1/blackouts", { scope, ...ids, ...window() });
      expect(blackout.status, scope).toBe(403);
      expect(await blackout.json()).toEqual(refusal(scope));
      const schedule = await call(manager, "POST", "/api/v1/blackout-schedules", {
        scope,
        ...ids,
        name: "nightly",
        cron_expression: "0 2 * * *",
        duration_minutes: 30,
      });
      expect(schedule.status, scope).toBe(403);
      expect(await schedule.json()).toEqual(refusal(scope));
    }
    expect(await t.datastore.sql`select id from blackouts`).toHaveLength(0);
    const own = await call(manager, "POST", "/api/v1/blackouts", {
      scope: "cluster",
      cluster_id: ownCluster,
      ...window(),
    });
    expect(own.status).toBe(201);
    const rooted = await call(root, "POST", "/api/v1/blackouts", {
      scope: "cluster",
      cluster_id: mixedCluster,
      ...window(),
    });
    expect(rooted.status).toBe(201);
  });

  it("shows a superuser's window there but refuses to change, stop or delete it", async () => {
    const { id } = (await (
      await call(root, "POST", "/api/v1/blackouts", {
        scope: "cluster",
        cluster_id: mixedCluster,
        ...window(),
      })
    ).json()) as { id: number };
    expect((await call(manager, "GET", `/api/v1/blackouts/${id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ["PUT", `/api/v1/blackouts/${id}`, { reason: "longer" }],
      ["POST", `/api/v1/blackouts/${id}/stop`, undefined],
      ["DELETE", `/api/v1/blackouts/${id}`, undefined],
    ] as const) {
      const res = await call(manager, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await res.json()).toEqual(refusal("cluster"));
    }
    const [row] = await t.datastore.sql<{ reason: string }[]>`select reason from blackouts where id = ${id}`;
    expect(row?.reason).toBe("maintenance");
    const schedule = (await (
      await call(root, "POST", "/api/v1/blackout-schedules", {
        scope: "group",
        group_id: mixedGroup,
        name: "weekly",
        cron_expression: "0 3 * * 0",
        duration_minutes: 60,
      })
    ).json()) as { id: number };
    expect((await call(manager, "DELETE", `/api/v1/blackout-schedules/${schedule.id}`)).status).toBe(403);
    expect(await t.datastore.sql`select id from blackout_schedules where id = ${schedule.id}`).toHaveLength(
      1,
    );
  });

  it("reads the overrides of such a scope, and changes them only on a scope it sees whole", async () => {
    const writes = (scope: string, id: number): [string, string, unknown][] => [
      [
        "PUT",
        `/api/v1/alert-overrides/${scope}/${id}/${ruleId}`,
        { operator: ">", threshold: 1, severity: "warning", enabled: true },
      ],
      ["DELETE", `/api/v1/alert-overrides/${scope}/${id}/${ruleId}`, undefined],
      ["PUT", `/api/v1/channel-overrides/${scope}/${id}/${channelId}`, { enabled: false }],
      ["DELETE", `/api/v1/channel-overrides/${scope}/${id}/${channelId}`, undefined],
      [
        "PUT",
        `/api/v1/probe-overrides/${scope}/${id}/pg_stat_database`,
        { is_enabled: false, collection_interval_seconds: 120, retention_days: 3 },
      ],
      ["DELETE", `/api/v1/probe-overrides/${scope}/${id}/pg_stat_database`, undefined],
    ];
    for (const [scope, id] of [
      ["cluster", mixedCluster],
      ["group", mixedGroup],
    ] as const) {
      for (const path of ["alert-overrides", "channel-overrides", "probe-overrides"]) {
        expect((await call(manager, "GET", `/api/v1/${path}/${scope}/${id}`)).status, path).toBe(200);
      }
      for (const [method, path, body] of writes(scope, id)) {
        const res = await call(manager, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(await res.json()).toEqual(refusal(scope));
      }
    }
    for (const [method, path, body] of writes("cluster", ownCluster)) {
      expect((await call(manager, method, path, body)).status, `${method} ${path}`).toBe(200);
    }
  });
});
