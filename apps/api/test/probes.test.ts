import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addConnection, seedProbeDefaults } from "./monitoring-support.js";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "./support.js";

describe("probe configuration endpoints", () => {
  let t: TestApp;
  let root: TestUser;
  let manager: TestUser;
  let viewer: TestUser;
  let mine: number;
  let hidden: number;

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    manager = await createUser(t, "manager", { permissions: ["manage_probes"] });
    viewer = await createUser(t, "viewer");
    await seedProbeDefaults(t);
    mine = await addConnection(t, "mine", { owner: "manager", clusterId: 7 });
    hidden = await addConnection(t, "hidden", { owner: "root" });
  });

  afterAll(async () => {
    await t?.close();
  });

  const get = (path: string, token?: string) => requestJson(t.app, path, { token });
  const put = (path: string, body: unknown, token?: string) =>
    requestJson(t.app, path, { method: "PUT", body, token });

  it("lists the global defaults of all 36 probes, ordered by name, in the reference's shape", async () => {
    const res = await get("/api/v1/probe-configs", viewer.token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>[];
    expect(body).toHaveLength(36);
    expect(body.map((row) => row.name)).toEqual([...body.map((row) => row.name as string)].sort());
    const activity = body.find((row) => row.name === "pg_stat_activity");
    expect(Object.keys(activity ?? {}).sort()).toEqual(
      [
        "collection_interval_seconds",
        "connection_id",
        "created_at",
        "description",
        "id",
        "is_enabled",
        "name",
        "retention_days",
        "updated_at",
      ].sort(),
    );
    expect(activity).toMatchObject({
      connection_id: null,
      is_enabled: true,
      collection_interval_seconds: 60,
      retention_days: 7,
    });
    expect(String(activity?.created_at)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("gets and updates one configuration (manage_probes), with the reference's refusals", async () => {
    const list = (await (await get("/api/v1/probe-configs", root.token)).json()) as {
      id: number;
      name: string;
    }[];
    const settings = list.find((row) => row.name === "pg_settings");
    const res = await get(`/api/v1/probe-configs/${settings?.id}`, viewer.token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "pg_settings", retention_days: 365 });
    expect((await get("/api/v1/probe-configs/999999", viewer.token)).status).toBe(404);
    expect(await (await get("/api/v1/probe-configs/999999", viewer.token)).json()).toEqual({
      error: "Probe config not found",
    });
    expect(await (await get("/api/v1/probe-configs/abc", viewer.token)).json()).toEqual({
      error: "Invalid config ID",
    });
    expect((await get(`/api/v1/probe-configs/${settings?.id}`)).status).toBe(401);

    const denied = await put(`/api/v1/probe-configs/${settings?.id}`, { is_enabled: false }, viewer.token);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({
      error: "Permission denied: you do not have permission to manage probes",
    });
    const zero = await put(`/api/v1/probe-configs/${settings?.id}`, { retention_days: 0 }, manager.token);
    expect(zero.status).toBe(400);
    expect(await zero.json()).toEqual({ error: "Request failed" });
    expect((await put("/api/v1/probe-configs/999999", { is_enabled: false }, manager.token)).status).toBe(
      404,
    );
    expect(
      (await put(`/api/v1/probe-configs/${settings?.id}`, { is_enabled: false }, undefined)).status,
    ).toBe(401);

    const updated = await put(
      `/api/v1/probe-configs/${settings?.id}`,
      { collection_interval_seconds: 1800 },
      manager.token,
    );
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({
      name: "pg_settings",
      collection_interval_seconds: 1800,
      retention_days: 365,
      is_enabled: true,
    });
    const method = await requestJson(t.app, "/api/v1/probe-configs/1", {
      method: "DELETE",
      token: root.token,
    });
    expect(method.status).toBe(405);
  });

  it("lists, sets and deletes overrides per scope; the connection's effective settings follow", async () => {
    const listed = await get(`/api/v1/probe-overrides/server/${mine}`, manager.token);
    expect(listed.status).toBe(200);
    const rows = (await listed.json()) as Record<string, unknown>[];
    expect(rows).toHaveLength(36);
    expect(rows.find((row) => row.name === "pg_stat_activity")).toEqual({
      name: "pg_stat_activity",
      description: expect.any(String),
      default_enabled: true,
      default_interval_seconds: 60,
      default_retention_days: 7,
      has_override: false,
      override_enabled: null,
      override_interval_seconds: null,
      override_retention_days: null,
    });

    const body = { is_enabled: false, collection_interval_seconds: 120, retention_days: 3 };
    const cluster = await put(
      "/api/v1/probe-overrides/cluster/7/pg_stat_activity",
      { ...body, is_enabled: true },
      manager.token,
    );
    expect(cluster.status).toBe(200);
    expect(await cluster.json()).toEqual({ status: "ok" });
    const effective = async () =>
      (
        (await (await get(`/api/v1/probe-configs?connection_id=${mine}`, manager.token)).json()) as Record<
          string,
          unknown
        >[]
      ).find((row) => row.name === "pg_stat_activity");
    expect(await effective()).toMatchObject({
      collection_interval_seconds: 120,
      is_enabled: true,
      connection_id: null,
    });
    expect(
      (await put(`/api/v1/probe-overrides/server/${mine}/pg_stat_activity`, body, manager.token)).status,
    ).toBe(200);
    expect(await effective()).toMatchObject({
      collection_interval_seconds: 120,
      is_enabled: false,
      retention_days: 3,
      connection_id: mine,
    });
    const after = (await (
      await get(`/api/v1/probe-overrides/server/${mine}`, manager.token)
    ).json()) as Record<string, unknown>[];
    expect(after.find((row) => row.name === "pg_stat_activity")).toMatchObject({
      has_override: true,
      override_enabled: false,
      override_interval_seconds: 120,
      override_retention_days: 3,
    });

    const deleted = await requestJson(t.app, `/api/v1/probe-overrides/server/${mine}/pg_stat_activity`, {
      method: "DELETE",
      token: manager.token,
    });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ status: "ok" });
    expect(await effective()).toMatchObject({ collection_interval_seconds: 120, is_enabled: true });
  });

  it("refuses bad scopes, bodies, callers and unseen scopes", async () => {
    const body = { is_enabled: true, collection_interval_seconds: 0, retention_days: 7 };
    const zero = await put(`/api/v1/probe-overrides/server/${mine}/pg_stat_activity`, body, manager.token);
    expect(zero.status).toBe(400);
    expect(await zero.json()).toEqual({ error: "Request failed" });
    const missing = await put(
      `/api/v1/probe-overrides/server/${mine}/pg_stat_activity`,
      { is_enabled: true },
      manager.token,
    );
    expect(await missing.json()).toEqual({ error: "Request failed" });
    expect(await (await get(`/api/v1/probe-overrides/estate/${mine}`, manager.token)).json()).toEqual({
      error: "Invalid scope: must be server, cluster, or group",
    });
    expect(await (await get("/api/v1/probe-overrides/server/x", manager.token)).json()).toEqual({
      error: "Invalid scope ID",
    });
    expect((await get(`/api/v1/probe-overrides/server/${mine}`)).status).toBe(401);
    const unseen = await get(`/api/v1/probe-overrides/server/${hidden}`, manager.token);
    expect(unseen.status).toBe(404);
    expect(await unseen.json()).toEqual({ error: "Probe override scope not found" });
    expect((await get("/api/v1/probe-overrides/server/999999", root.token)).status).toBe(404);
    const ok = { is_enabled: true, collection_interval_seconds: 10, retention_days: 7 };
    expect(
      (await put(`/api/v1/probe-overrides/server/${mine}/pg_stat_activity`, ok, viewer.token)).status,
    ).toBe(403);
    expect(
      (await put(`/api/v1/probe-overrides/server/${mine}/no_such_probe`, ok, manager.token)).status,
    ).toBe(404);
    const badId = await get("/api/v1/probe-configs?connection_id=x", viewer.token);
    expect(await badId.json()).toEqual({ error: "Invalid connection_id parameter" });
    expect((await get(`/api/v1/probe-configs?connection_id=${hidden}`, viewer.token)).status).toBe(403);
  });
});
