import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Datastore,
  type EmbeddedServer,
  openDatastore,
  silentLogger,
  startEmbeddedServer,
} from "../src/index.js";

/*
 * The listening session of a process closes when the datastore restarts. The hub's checks (every
 * `listenCheckSeconds`) would find a subscription that never came back; a minute here, so the
 * subscription must come back on its own (the driver listens again once the server is back) within
 * the few seconds this test waits.
 */
describe("a LISTEN subscription through a datastore restart", () => {
  let dataDir: string;
  let server: EmbeddedServer;
  let datastore: Datastore;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "dbmon-listen-restart-"));
    server = await startEmbeddedServer({ dataDir, port: 0, logger: silentLogger });
    datastore = await openDatastore({
      databaseUrl: server.url,
      dataDir: "",
      migrate: false,
      maxConnections: 2,
      listenCheckSeconds: 60,
    });
  });
  afterAll(async () => {
    await datastore?.close();
    await server?.stop();
    if (dataDir) {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("comes back within seconds of the datastore, not at the next check", async () => {
    const received: string[] = [];
    let subscribed = 0;
    await datastore.listen(
      "dbmon_restart_test",
      (payload) => received.push(payload),
      () => {
        subscribed += 1;
      },
    );
    await datastore.sql`select pg_notify('dbmon_restart_test', 'before')`;
    await waitUntil(() => received.includes("before"), 5_000);

    const port = server.port;
    await server.stop();
    // Down for longer than the driver's first attempt to listen again.
    await new Promise((done) => setTimeout(done, 5_000));
    server = await startEmbeddedServer({ dataDir, port, logger: silentLogger });
    const restartedAt = Date.now();

    let sent = 0;
    await waitUntil(async () => {
      sent += 1;
      await datastore.sql`select pg_notify('dbmon_restart_test', ${`after ${sent}`})`.catch(() => {});
      return received.some((payload) => payload.startsWith("after"));
    }, 8_000);
    expect(Date.now() - restartedAt).toBeLessThan(8_000);
    // Subscribed anew, which tells the subscriber that what was sent meanwhile may be lost.
    expect(subscribed).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

async function waitUntil(done: () => boolean | Promise<boolean>, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while (!(await done())) {
    if (Date.now() > until) {
      throw new Error(`not within ${withinMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
