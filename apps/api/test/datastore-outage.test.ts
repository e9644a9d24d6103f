import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDatastoreUnavailable, migrateDatastore } from "@dbmon/datastore";
import {
  machinePostgresBinariesAvailable,
  startPrimary,
  type TestServer,
  waitFor,
} from "@dbmon/datastore/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DbmonProcess, startDbmon } from "./dbmon-processes.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  TEST_PASSWORD,
  type TestApp,
  type TestUser,
} from "./support.js";

/*
 * The API through a datastore outage (issue 28 item 4): a private PostgreSQL as its datastore,
 * stopped and started again on the same port under the running app.
 */
describe.skipIf(!machinePostgresBinariesAvailable())("the API while its datastore is down", () => {
  let server: TestServer;
  let t: TestApp;
  let root: TestUser;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on("unhandledRejection", onUnhandled);
    server = await startPrimary("replica");
    await migrateDatastore(server.url);
    t = await buildTestApp({
      database: { name: "postgres", url: server.url, serverUrl: server.url, drop: async () => {} },
    });
    root = await createUser(t, "root", { superuser: true });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await server?.remove();
    process.off("unhandledRejection", onUnhandled);
  });

  const connections = () => requestJson(t.app, "/api/v1/connections", { token: root.token });
  const outageLogs = () =>
    t.logs.filter((line) => line.msg === "datastore unavailable: requests are answered 503 until it is back");

  it("answers 503 JSON with Retry-After while it is down, and 200 again once it is back", async () => {
    expect((await connections()).status).toBe(200);

    await server.stop();
    for (let attempt = 0; attempt < 3; attempt++) {
      const down = await connections();
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBe("5");
      expect(await down.json()).toEqual({ error: "Datastore unavailable" });
    }
    // A login reads the datastore before any token is checked.
    const login = await requestJson(t.app, "/api/v1/auth/login", {
      method: "POST",
      body: { username: "root", password: TEST_PASSWORD },
    });
    expect(login.status).toBe(503);
    expect(await login.json()).toEqual({ error: "Datastore unavailable" });
    const health = await requestJson(t.app, "/health");
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      status: "unavailable",
      server: "dbmon",
      error: "The datastore is unreachable",
    });
    // Once per outage, not once per request.
    expect(outageLogs()).toHaveLength(1);

    await server.start();
    const back = await waitFor("the API to answer again", async () => {
      const response = await connections();
      return response.status === 200 ? response : undefined;
    });
    expect(Array.isArray(await back.json())).toBe(true);
    expect((await requestJson(t.app, "/health")).status).toBe(200);
    await waitFor("the recovery to be logged", async () =>
      t.logs.some((line) => line.msg === "datastore reachable again") ? true : undefined,
    );
    expect(outageLogs()).toHaveLength(1);
    expect(unhandled).toEqual([]);
  }, 120_000);

  it("tells the datastore's connection errors from those of a monitored server or a provider", () => {
    const refused = (port: number) =>
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED", port });
    expect(isDatastoreUnavailable(refused(server.port), t.datastore)).toBe(true);
    expect(
      isDatastoreUnavailable(new Error("query failed", { cause: refused(server.port) }), t.datastore),
    ).toBe(true);
    expect(
      isDatastoreUnavailable(Object.assign(new Error("terminating"), { code: "57P01" }), t.datastore),
    ).toBe(true);
    expect(isDatastoreUnavailable(refused(server.port + 1), t.datastore)).toBe(false);
    expect(isDatastoreUnavailable(new TypeError("fetch failed", { cause: refused(443) }), t.datastore)).toBe(
      false,
    );
    expect(
      isDatastoreUnavailable(Object.assign(new Error("duplicate"), { code: "23505" }), t.datastore),
    ).toBe(false);
  });

  it("keeps a `dbmon serve` process running through a datastore stop and start", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "dbmon-outage-"));
    const serve: DbmonProcess = startDbmon("serve", {
      DBMON_DATABASE_URL: server.url,
      DBMON_DATA_DIR: dataDir,
      DBMON_SECRET: "datastore-outage-test-secret",
      DBMON_LOG_LEVEL: "info",
      DBMON_PORT: "0",
      DBMON_COLLECTOR: "false",
      DBMON_ALERTER: "false",
      DBMON_MONITOR_SELF: "false",
    });
    try {
      const base = String((await serve.logged("dbmon API listening")).address);
      const login = await fetch(`${base}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: root.username, password: TEST_PASSWORD }),
      });
      const { session_token: token } = (await login.json()) as { session_token: string };
      const list = () =>
        fetch(`${base}/api/v1/connections`, { headers: { authorization: `Bearer ${token}` } });
      expect((await list()).status).toBe(200);

      await server.stop();
      const down = await list();
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBe("5");
      expect(await down.json()).toEqual({ error: "Datastore unavailable" });
      expect((await fetch(`${base}/health`)).status).toBe(503);

      await server.start();
      await waitFor("the process to answer again", async () =>
        (await list()).status === 200 ? true : undefined,
      );
      await serve.logged("datastore reachable again", 15_000);
      expect(serve.child.exitCode).toBeNull();
      expect(serve.logs.filter((line) => line.level === 60 || line.msg === "unhandled error")).toEqual([]);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
