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
