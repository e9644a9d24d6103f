import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readServerInfo } from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";

describe("server information without collected data", () => {
  let testDb: TestDatabase;
  let sql: postgres.Sql;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
  });

  afterAll(async () => {
    await sql?.end();
    await testDb?.drop();
  });

  it("is null for an unknown connection", async () => {
    expect(await readServerInfo({ sql }, 4242)).toBeNull();
  });

  it("answers nulls and empty lists (D5), before the collector has created its tables", async () => {
    const [row] = await sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username)
      values ('fresh', 'db.example.com', 5432, 'postgres', 'monitor', 'admin') returning id`;
    const id = row?.id ?? 0;
    expect(await readServerInfo({ sql }, id)).toEqual({
      connectionId: id,
      collectedAt: null,
      host: {
        osName: null,
        osVersion: null,
        architecture: null,
        hostname: null,
        cpuModel: null,
        cpuCores: null,
        cpuLogicalProcessors: null,
        cpuClockSpeedHz: null,
        memoryTotalBytes: null,
        memoryUsedBytes: null,
        memoryFreeBytes: null,
        swapTotalBytes: null,
        swapUsedBytes: null,
        disks: [],
      },
      server: {
        version: null,
        clusterName: null,
        dataDirectory: null,
        maxConnections: null,
        maxWalSenders: null,
        maxReplicationSlots: null,
      },
      databases: [],
      extensions: [],
      keySettings: [],
    });
  });

  it("notifies collectors of changes that matter to them, not of connection_error updates", async () => {
    const received: string[] = [];
    const listener = await sql.listen("dbmon_connections", (payload) => received.push(payload));
    const [row] = await sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username)
      values ('watched', 'db.example.com', 5432, 'postgres', 'monitor', 'admin') returning id`;
    const id = row?.id ?? 0;
    await sql`update connections set connection_error = 'down' where id = ${id}`;
    await sql`update connections set port = 5433 where id = ${id}`;
    await sql`delete from connections where id = ${id}`;
    await new Promise((done) => setTimeout(done, 300));
    await listener.unlisten();
    expect(received.map((payload) => JSON.parse(payload))).toEqual([
      { connection_id: id, op: "insert" },
      { connection_id: id, op: "update" },
      { connection_id: id, op: "delete" },
    ]);
  });
});
