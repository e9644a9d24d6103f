import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunTimeoutError, ServerSessions } from "../src/sessions.js";
import type { ServerTarget } from "../src/target.js";

describe("a monitored server's sessions", () => {
  let database: TestDatabase;
  let admin: postgres.Sql;
  let target: ServerTarget;

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = postgres(database.url, { max: 1, onnotice: () => {} });
    const url = new URL(database.url);
    target = {
      host: url.hostname,
      path: undefined,
      port: Number(url.port),
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password) || undefined,
      ssl: false,
      isLocalHost: true,
      address: async () => url.hostname,
    };
  });
  afterAll(async () => {
    await admin.end();
    await database.drop();
  });

  const limits = {
    maxSessions: 2,
    connectTimeoutSeconds: 5,
    statementTimeoutMs: 60_000,
    idleSessionMs: 60_000,
  };

  it("read arrays without asking the server for its types first", async () => {
    const sessions = new ServerSessions(target, limits);
    try {
      const rows = await sessions.withSession(database.name, Date.now() + 10_000, (query) =>
        query("select array['a', null]::text[] as texts, '{1,2}'::int4[] as ints"),
      );
      expect(rows).toEqual([{ texts: ["a", null], ints: [1, 2] }]);
    } finally {
      await sessions.close();
    }
  });

  it("give up on a server that stalls a new session's first query, and close without crashing the process", async () => {
    // A lock on pg_type stalls a new session's first catalog read. With the driver's own type
    // lookup, dropping that session rejected a promise nobody held: an unhandled rejection, which
    // ends the collector (and fails this file under vitest).
    const locker = await admin.reserve();
    const sessions = new ServerSessions(target, limits);
    try {
      await locker`begin`;
      await locker`lock table pg_catalog.pg_type in access exclusive mode`;
      await expect(
        sessions.withSession(database.name, Date.now() + 500, (query) => query("select 1 as one")),
      ).rejects.toBeInstanceOf(RunTimeoutError);
      await sessions.close();
      // The dropped session's end settles after its timeout; let it happen inside this test.
      await new Promise((done) => setTimeout(done, 1_500));
    } finally {
      await locker`rollback`;
      locker.release();
      await sessions.close();
    }
  });
});
