import { getServerAiAnalysis, getServerInfo } from "@dbmon/contract";
import { readServerInfo } from "@dbmon/datastore";
import { loadLlmConfig } from "@dbmon/llm";
import { type FakeProvider, startFakeProvider } from "@dbmon/llm/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectUntil, monitorTestServer } from "./monitoring-support.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

/** A connection's server information, as `user` reads it through the typed client. */
const serverInfo = (t: TestApp, user: TestUser, id: number) =>
  typedClient(t, user.token).call(getServerInfo, { params: { connection_id: id } });

const KEY_SETTINGS = [
  "shared_buffers",
  "work_mem",
  "effective_cache_size",
  "maintenance_work_mem",
  "max_worker_processes",
  "wal_level",
  "archive_mode",
  "max_wal_size",
  "min_wal_size",
  "checkpoint_completion_target",
  "random_page_cost",
  "effective_io_concurrency",
  "max_parallel_workers",
  "max_parallel_workers_per_gather",
  "autovacuum",
  "log_min_duration_statement",
];

const emptyDbServer = {
  version: null,
  cluster_name: null,
  data_directory: null,
  max_connections: null,
  max_wal_senders: null,
  max_replication_slots: null,
};

const emptyInfo = (id: number) => ({
  connection_id: id,
  collected_at: null,
  system: {
    os_name: null,
    os_version: null,
    architecture: null,
    hostname: null,
    cpu_model: null,
    cpu_cores: null,
    cpu_logical: null,
    cpu_clock_speed: null,
    memory_total_bytes: null,
    memory_used_bytes: null,
    memory_free_bytes: null,
    swap_total_bytes: null,
    swap_used_bytes: null,
    disks: [],
  },
  dbserver: emptyDbServer,
  postgresql: emptyDbServer,
  databases: [],
  extensions: [],
  key_settings: [],
  ai_analysis: null,
});

describe("server information", () => {
  let t: TestApp;
  let root: TestUser;
  let outsider: TestUser;
  let id: number;

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    outsider = await createUser(t, "outsider");
    id = await monitorTestServer(t, "root");
  });
  afterAll(() => t.close());

  it("answers empty values before anything was collected", async () => {
    expect(await serverInfo(t, root, id)).toEqual(emptyInfo(id));
  });

  it("refuses bad and missing ids, missing tokens, callers without access and unknown connections", async () => {
    const cases: [string, string | undefined, number, string][] = [
      ["/api/v1/server-info/abc", root.token, 400, "Invalid connection ID"],
      ["/api/v1/server-info/1.5", root.token, 400, "Invalid connection ID"],
      ["/api/v1/server-info/", root.token, 400, "Connection ID is required"],
      ["/api/v1/server-info", root.token, 400, "Connection ID is required"],
      [`/api/v1/server-info/${id}`, undefined, 401, "Missing or invalid authentication credentials"],
      [`/api/v1/server-info/${id}`, "forged-token", 401, "Invalid or unknown token"],
      [
        `/api/v1/server-info/${id}`,
        outsider.token,
        403,
        "Permission denied: you do not have access to this connection",
      ],
      ["/api/v1/server-info/9999", root.token, 404, "Connection not found"],
      ["/api/v1/server-info/9999", outsider.token, 404, "Connection not found"],
      [
        `/api/v1/server-info/${id}/ai-analysis`,
        outsider.token,
        403,
        "Permission denied: you do not have access to this connection",
      ],
      ["/api/v1/server-info/abc/ai-analysis", root.token, 400, "Invalid connection ID"],
      ["/api/v1/server-info/9999/ai-analysis", root.token, 404, "Connection not found"],
    ];
    for (const [path, token, status, error] of cases) {
      const res = await requestJson(t.app, path, token ? { token } : {});
      expect(res.status, path).toBe(status);
      expect(await res.json(), path).toEqual({ error });
    }
    const post = await requestJson(t.app, `/api/v1/server-info/${id}`, { method: "POST", token: root.token });
    expect(post.status).toBe(405);
  });

  describe("after a real collection", () => {
    let server: postgres.Sql;

    beforeAll(async () => {
      await collectUntil(
        t,
        id,
        (info) =>
          info.collected_at !== null &&
          info.databases.length > 0 &&
          info.key_settings.length > 0 &&
          info.extensions.length > 0 &&
          info.system.disks.length > 0,
      );
      server = postgres(t.database.url, { max: 1, onnotice: () => {} });
    });
    afterAll(() => server.end());

    it("reports the server's configuration exactly", async () => {
      const body = await serverInfo(t, root, id);
      const [live] = await server`select current_setting('server_version') as version,
        current_setting('cluster_name') as cluster_name, current_setting('data_directory') as data_directory,
        current_setting('max_connections')::int as max_connections,
        current_setting('max_wal_senders')::int as max_wal_senders,
        current_setting('max_replication_slots')::int as max_replication_slots`;
      expect(body.dbserver).toEqual(live);
      expect(body.postgresql).toEqual(body.dbserver);
      expect(typeof body.dbserver.max_connections).toBe("number");
      expect(body.collected_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(new Date(body.collected_at ?? 0).getTime()).toBeGreaterThan(Date.now() - 120_000);
      expect(body.ai_analysis).toBeNull();
    });

    it("lists databases with sizes as integers, without templates", async () => {
      const body = await serverInfo(t, root, id);
      const names = body.databases.map((database) => database.name);
      expect(names).not.toContain("template0");
      expect(names).not.toContain("template1");
      const mine = body.databases.find((database) => database.name === t.database.name);
      expect(mine).toBeDefined();
      expect(Object.keys(mine ?? {}).sort()).toEqual([
        "connection_limit",
        "encoding",
        "extensions",
        "name",
        "size_bytes",
      ]);
      expect(Number.isInteger(mine?.size_bytes)).toBe(true);
      expect(mine?.size_bytes).toBeGreaterThan(1_000_000);
      expect(mine?.encoding).toBe("UTF8");
      expect(mine?.connection_limit).toBe(-1);
      expect(mine?.extensions).toContain("plpgsql");
      const plpgsql = body.extensions.find(
        (extension) => extension.name === "plpgsql" && extension.database === t.database.name,
      );
      expect(plpgsql).toEqual({
        name: "plpgsql",
        version: "1.0",
        schema: "pg_catalog",
        database: t.database.name,
      });
    });

    it("returns exactly the 16 key settings, omitting unit when there is none", async () => {
      const body = await serverInfo(t, root, id);
      expect(body.key_settings.map((setting) => setting.name).sort()).toEqual([...KEY_SETTINGS].sort());
      const byName = new Map(body.key_settings.map((setting) => [setting.name, setting]));
      const [sharedBuffers] =
        await server`select setting, unit, category from pg_settings where name = 'shared_buffers'`;
      expect(byName.get("shared_buffers")).toEqual({
        name: "shared_buffers",
        setting: sharedBuffers?.setting,
        unit: sharedBuffers?.unit,
        category: sharedBuffers?.category,
      });
      const autovacuum = byName.get("autovacuum");
      expect(autovacuum && "unit" in autovacuum).toBe(false);
      expect(Object.keys(autovacuum ?? {}).sort()).toEqual(["category", "name", "setting"]);
    });

    it("describes this host, since the server runs on it", async () => {
      const body = await serverInfo(t, root, id);
      expect(body.system.os_name).toEqual(expect.any(String));
      expect(body.system.cpu_logical).toEqual(expect.any(Number));
      expect(Number.isInteger(body.system.memory_total_bytes)).toBe(true);
      expect(body.system.memory_total_bytes as number).toBeGreaterThan(1 << 20);
      expect(body.system.disks.length).toBeGreaterThan(0);
      expect(Object.keys(body.system.disks[0] ?? {}).sort()).toEqual(
        ["filesystem_type", "free_bytes", "mount_point", "total_bytes", "used_bytes"].sort(),
      );
    });
  });
});

describe("AI analysis of a connection's databases", () => {
  let provider: FakeProvider;
  let t: TestApp;
  let root: TestUser;
  let id: number;
  let now = new Date("2026-11-22T10:00:00Z");

  beforeAll(async () => {
    provider = await startFakeProvider({ apiKey: "test-key" });
    const llm = loadLlmConfig({
      DBMON_LLM_PROVIDER: "openai",
      DBMON_LLM_MODEL: "test-model",
      DBMON_LLM_BASE_URL: provider.openaiBaseUrl,
      OPENAI_API_KEY: "test-key",
      DBMON_LLM_MAX_RETRIES: "0",
    });
    t = await buildTestApp({ config: { llm }, clock: { now: () => now } });
    root = await createUser(t, "root", { superuser: true });
    id = await monitorTestServer(t, "root");
  });
  afterAll(async () => {
    await t.close();
    await provider.close();
  });

  const analysis = () =>
    typedClient(t, root.token).call(getServerAiAnalysis, { params: { connection_id: id } });

  it("is null while the connection has no collected databases", async () => {
    expect(await analysis()).toBeNull();
    expect(provider.requests).toHaveLength(0);
  });

  it("describes each database, serves the cache for five minutes, then asks again", async () => {
    await collectUntil(t, id, (info) => info.databases.length > 0);
    const databases =
      (await readServerInfo(t.datastore, id))?.databases.map((database) => database.name) ?? [];

    provider.script({ text: databases.map((name) => `**${name}**: Holds data for ${name}.`).join("\n") });
    const body = await analysis();
    expect(body?.generated_at).toBe(now.toISOString());
    expect(Object.keys(body?.databases ?? {}).sort()).toEqual([...databases].sort());
    expect(body?.databases[t.database.name]).toBe(`Holds data for ${t.database.name}.`);
    expect(provider.requests).toHaveLength(1);
    expect(JSON.stringify(provider.requests[0]?.body)).toContain(t.database.name);

    now = new Date(now.getTime() + 4 * 60_000);
    expect(await analysis()).toEqual(body);
    expect(provider.requests).toHaveLength(1);

    now = new Date(now.getTime() + 2 * 60_000);
    provider.script({ text: databases.map((name) => `${name}: Fresh words.`).join("\n") });
    const fresh = await analysis();
    expect(provider.requests).toHaveLength(2);
    expect(fresh?.generated_at).toBe(now.toISOString());
    expect(fresh?.databases[t.database.name]).toBe("Fresh words.");
  });

  it("is null when the provider fails", async () => {
    now = new Date(now.getTime() + 10 * 60_000);
    provider.script({ status: 500, message: "upstream broke" });
    expect(await analysis()).toBeNull();
  });

  it("is null when no provider is configured", async () => {
    const plain = await buildTestApp();
    const admin = await createUser(plain, "admin", { superuser: true });
    const connection = await monitorTestServer(plain, "admin");
    const res = await requestJson(plain.app, `/api/v1/server-info/${connection}/ai-analysis`, {
      token: admin.token,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("null");
    await plain.close();
  });
});
