import {
  createTestDatabase,
  machinePostgresBinariesAvailable,
  startTlsPrimary,
  type TestDatabase,
  type TlsTestServer,
} from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultTooLargeError, RunTimeoutError, ServerSessions } from "../src/sessions.js";
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
    maxResultBytes: 1024 * 1024,
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
  it("cut an answer larger than the limit, and leave the server usable", async () => {
    const sessions = new ServerSessions(target, { ...limits, maxResultBytes: 64 * 1024 });
    try {
      const deadline = Date.now() + 10_000;
      await expect(
        sessions.withSession(database.name, deadline, (query) => query("select repeat('x', 1000000) as big")),
      ).rejects.toBeInstanceOf(ResultTooLargeError);
      const rows = await sessions.withSession(database.name, deadline, (query) =>
        query("select repeat('x', 1000) as small"),
      );
      expect(rows[0]?.small).toHaveLength(1000);
    } finally {
      await sessions.close();
    }
  });

  describe.skipIf(!machinePostgresBinariesAvailable())("on a server that accepts TLS", () => {
    let server: TlsTestServer;
    const tlsTarget = (ssl: ServerTarget["ssl"]): ServerTarget => ({
      ...target,
      port: server.port,
      username: "postgres",
      password: undefined,
      ssl,
    });
    const usesTls = async (ssl: ServerTarget["ssl"]) => {
      const sessions = new ServerSessions(tlsTarget(ssl), limits);
      try {
        const rows = await sessions.withSession("postgres", Date.now() + 10_000, (query) =>
          query("select ssl from pg_stat_ssl where pid = pg_backend_pid()"),
        );
        return rows[0]?.ssl;
      } finally {
        await sessions.close();
      }
    };

    beforeAll(async () => {
      server = await startTlsPrimary();
    }, 60_000);
    afterAll(() => server?.remove());

    it("speak TLS as sslmode asks, verifying the certificate and the host name where it says so", async () => {
      expect(await usesTls(false)).toBe(false);
      expect(await usesTls("prefer")).toBe(true);
      expect(await usesTls("require")).toBe(true);
      // verify-full: the certificate is checked against the CA, and against the name sent as SNI.
      expect(await usesTls({ ca: server.certificate, servername: "localhost" })).toBe(true);
      await expect(usesTls({ ca: server.certificate, servername: "db.example.com" })).rejects.toThrow(
        /altnames|does not match/i,
      );
      await expect(usesTls({ servername: "localhost" })).rejects.toThrow(/self[- ]signed/i);
    });
  });
});
