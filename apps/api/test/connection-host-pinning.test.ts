import { createHostPolicy } from "@dbmon/monitoring";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectionStore } from "../src/connections/store.js";
import { createLogger } from "../src/logger.js";
import { buildTestApp, type TestApp } from "./support.js";

/**
 * A connection's host is resolved and checked when a session is opened, and the session goes to
 * the address that passed: a name that later resolves to a forbidden address (DNS rebinding) is refused.
 */
describe("connecting to a monitored server", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it("goes to the vetted address, and is refused once the name leads somewhere forbidden", async () => {
    const server = new URL(t.database.url);
    let answer = [server.hostname];
    const store = new ConnectionStore({
      datastore: t.datastore,
      key: t.services.secretKey,
      hostPolicy: createHostPolicy({ resolve: async () => answer }),
      sslDirectory: undefined,
      logger: createLogger("silent"),
    });
    const row = await store.create(
      {
        name: "by-name",
        host: "db.rebind.test",
        port: Number(server.port),
        databaseName: t.database.name,
        username: decodeURIComponent(server.username),
        password: decodeURIComponent(server.password) || "unused",
        sslMode: "disable",
      },
      null,
    );
    const options = await store.clientOptions(row);
    expect(options.host).toBe(server.hostname);
    const sql = postgres({ ...options, max: 1, onnotice: () => {} });
    try {
      expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
    } finally {
      await sql.end();
    }

    answer = ["169.254.169.254"];
    await expect(store.clientOptions(row)).rejects.toThrow("Invalid host");
  });
});
