import {
  deleteProbeOverride,
  getProbeConfig,
  listProbeConfigs,
  listProbeOverrides,
  updateProbeConfig,
  upsertProbeOverride,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addConnection, seedProbeDefaults } from "./monitoring-support.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

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

  it("lists the global defaults of all 37 probes, ordered by name, in the reference's shape", async () => {
    const body = await typedClient(t, viewer.token).call(listProbeConfigs, { query: {} });
    expect(body).toHaveLength(37);
    expect(body.map((row) => row.name)).toEqual([...body.map((row) => row.name)].sort());
    const activity = body.find((row) => row.name === "pg_stat_activity");
    expect(Object.keys(activity ?? {}).sort()).toEqual(
      [
        "collection_interval_seconds",
        "connection_id",
        "created_at",
        "description",
        "id",
        "include_system_catalogs",
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
      include_system_catalogs: null,
    });
    expect(
      body
        .filter((row) => row.include_system_catalogs !== null)
        .map((row) => [row.name, row.include_system_catalogs]),
    ).toEqual([
      ["pg_stat_all_indexes", true],
      ["pg_stat_all_tables", true],
    ]);
    expect(String(activity?.created_at)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("gets and updates one configuration (manage_probes), with the reference's refusals", async () => {
    const list = await typedClient(t, root.token).call(listProbeConfigs, { query: {} });
    const settings = list.find((row) => row.name === "pg_settings");
    expect(
      await typedClient(t, viewer.token).call(getProbeConfig, { params: { id: settings?.id ?? 0 } }),
    ).toMatchObject({ name: "pg_settings", retention_days: 365 });
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

    const updated = await typedClient(t, manager.token).call(updateProbeConfig, {
      params: { id: settings?.id ?? 0 },
      body: { collection_interval_seconds: 1800 },
    });
    expect(updated).toMatchObject({
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
    const api = typedClient(t, manager.token);
    const rows = await api.call(listProbeOverrides, { params: { scope: "server", scopeId: mine } });
    expect(rows).toHaveLength(37);
    expect(rows.find((row) => row.name === "pg_stat_activity")).toEqual({
      name: "pg_stat_activity",
      description: expect.any(String),
      default_enabled: true,
      default_interval_seconds: 60,
      default_retention_days: 7,
      default_include_system_catalogs: null,
      has_override: false,
      override_enabled: null,
      override_interval_seconds: null,
      override_retention_days: null,
      override_include_system_catalogs: null,
    });

    const body = { is_enabled: false, collection_interval_seconds: 120, retention_days: 3 };
    const cluster = await api.call(upsertProbeOverride, {
      params: { scope: "cluster", scopeId: 7, probeName: "pg_stat_activity" },
      body: { ...body, is_enabled: true },
    });
    expect(cluster).toEqual({ status: "ok" });
    const effective = async () =>
      (await api.call(listProbeConfigs, { query: { connection_id: mine } })).find(
        (row) => row.name === "pg_stat_activity",
      );
    expect(await effective()).toMatchObject({
      collection_interval_seconds: 120,
      is_enabled: true,
      connection_id: null,
    });
    expect(
      await api.call(upsertProbeOverride, {
        params: { scope: "server", scopeId: mine, probeName: "pg_stat_activity" },
        body,
      }),
    ).toEqual({ status: "ok" });
    expect(await effective()).toMatchObject({
      collection_interval_seconds: 120,
      is_enabled: false,
      retention_days: 3,
      connection_id: mine,
    });
    const after = await api.call(listProbeOverrides, { params: { scope: "server", scopeId: mine } });
    expect(after.find((row) => row.name === "pg_stat_activity")).toMatchObject({
      has_override: true,
      override_enabled: false,
      override_interval_seconds: 120,
      override_retention_days: 3,
    });

    const deleted = await api.call(deleteProbeOverride, {
      params: { scope: "server", scopeId: mine, probeName: "pg_stat_activity" },
    });
    expect(deleted).toEqual({ status: "ok" });
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
  it("leaves out the system catalogs per probe configuration, only where a probe lists them", async () => {
    const api = typedClient(t, manager.token);
    const list = await api.call(listProbeConfigs, { query: {} });
    const tables = list.find((row) => row.name === "pg_stat_all_tables");
    const settings = list.find((row) => row.name === "pg_settings");

    const updated = await api.call(updateProbeConfig, {
      params: { id: tables?.id ?? 0 },
      body: { include_system_catalogs: false },
    });
    expect(updated).toMatchObject({ name: "pg_stat_all_tables", include_system_catalogs: false });
    expect(updated.collection_interval_seconds).toBe(tables?.collection_interval_seconds);

    const inapplicable = await put(
      `/api/v1/probe-configs/${settings?.id}`,
      { include_system_catalogs: false },
      manager.token,
    );
    expect(inapplicable.status).toBe(400);
    expect(await inapplicable.json()).toEqual({
      error: "include_system_catalogs applies only to a probe that lists system catalogs",
    });
    const mistyped = await put(
      `/api/v1/probe-configs/${tables?.id}`,
      { include_system_catalogs: "no" },
      manager.token,
    );
    expect(mistyped.status).toBe(400);
    expect(await mistyped.json()).toEqual({ error: "Request failed" });
    expect(
      (await put(`/api/v1/probe-configs/${tables?.id}`, { include_system_catalogs: true }, viewer.token))
        .status,
    ).toBe(403);

    // An override without the field takes the global default's; with it, its own.
    const scope = { scope: "server" as const, scopeId: mine };
    const base = { is_enabled: true, collection_interval_seconds: 300, retention_days: 7 };
    await api.call(upsertProbeOverride, {
      params: { ...scope, probeName: "pg_stat_all_tables" },
      body: base,
    });
    await api.call(upsertProbeOverride, {
      params: { ...scope, probeName: "pg_stat_all_indexes" },
      body: { ...base, include_system_catalogs: false },
    });
    const overrides = await api.call(listProbeOverrides, { params: scope });
    expect(
      overrides
        .filter((row) => row.name.startsWith("pg_stat_all_"))
        .map((row) => [row.name, row.default_include_system_catalogs, row.override_include_system_catalogs]),
    ).toEqual([
      ["pg_stat_all_indexes", true, false],
      ["pg_stat_all_tables", false, false],
    ]);
    const effective = await api.call(listProbeConfigs, { query: { connection_id: mine } });
    expect(
      effective
        .filter((row) => row.include_system_catalogs !== null)
        .map((row) => [row.name, row.include_system_catalogs, row.connection_id]),
    ).toEqual([
      ["pg_stat_all_indexes", false, mine],
      ["pg_stat_all_tables", false, mine],
    ]);

    const refused = await put(
      `/api/v1/probe-overrides/server/${mine}/pg_stat_activity`,
      { ...base, include_system_catalogs: true },
      manager.token,
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: "include_system_catalogs applies only to a probe that lists system catalogs",
    });
    expect(
      (await api.call(listProbeOverrides, { params: scope })).find((row) => row.name === "pg_stat_activity")
        ?.has_override,
    ).toBe(false);
  });
});
