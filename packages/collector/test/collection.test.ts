import { readServerInfo } from "@dbmon/datastore";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningCollector, startCollector } from "../src/index.js";
import {
  createMonitoredDatabase,
  insertConnection,
  MONITORED_SERVER_URL,
  openTestEnvironment,
  quietLogger,
  type TestEnvironment,
  waitFor,
} from "./support.js";

describe("collection from PostgreSQL 15", () => {
  let env: TestEnvironment;
  let monitored: Awaited<ReturnType<typeof createMonitoredDatabase>>;
  let collector: RunningCollector;
  let connectionId: number;

  beforeAll(async () => {
    env = await openTestEnvironment();
    monitored = await createMonitoredDatabase(
      MONITORED_SERVER_URL,
      (sql) => sql`create extension if not exists pg_trgm`,
    );
    connectionId = await insertConnection(env, { database_name: monitored.name });
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      intervalOverrides: { pg_connectivity: 1 },
    });
  });

  afterAll(async () => {
    await collector?.stop();
    await monitored?.drop();
    await env?.close();
  });

  it("stores every probe and reads server information from it", async () => {
    const info = await waitFor("a full collection", async () => {
      const current = await readServerInfo(env.datastore, connectionId);
      return current?.system.disks.length && current.key_settings.length && current.extensions.length
        ? current
        : undefined;
    });
    console.log(JSON.stringify(info, null, 2));
    expect(info.connection_id).toBe(connectionId);
  });
});
