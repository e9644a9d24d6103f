import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Datastore,
  encryptSecret,
  migrateDatastore,
  openDatastore,
  type SecretKey,
} from "@dbmon/datastore";
import { machinePostgresBinariesAvailable, startPrimary, type TestServer } from "@dbmon/datastore/testing";
import { createOutboundHostPolicy } from "@dbmon/monitoring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningAlerter, silentAlerterLogger, startAlerter } from "../src/index.js";

/*
 * A notification whose send succeeded while the datastore went away before the outcome was
 * recorded: it must not be sent again when its claim lapses. The datastore is a private PostgreSQL,
 * stopped by the webhook receiver while it holds the request.
 */
describe.skipIf(!machinePostgresBinariesAvailable())("a dispatch cut by a datastore outage", () => {
  let server: TestServer;
  let datastore: Datastore;
  let receiver: Server;
  let alerter: RunningAlerter;
  const secretKey = randomBytes(32) as SecretKey;
  let now = new Date("2026-06-01T10:00:00Z");
  const received: { event: string }[] = [];
  let stopDatastoreOnDelivery = true;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on("unhandledRejection", onUnhandled);
    server = await startPrimary("replica");
    await migrateDatastore(server.url);
    datastore = await openDatastore({
      databaseUrl: server.url,
      dataDir: "",
      migrate: false,
      maxConnections: 4,
    });
    receiver = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => {
        received.push(JSON.parse(body) as { event: string });
        const answer = () => response.writeHead(200).end("ok");
        if (stopDatastoreOnDelivery) {
          stopDatastoreOnDelivery = false;
          void server.stop().then(answer);
        } else {
          answer();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await datastore.sql`
      insert into connections (name, host, port, database_name, username, password_encrypted, sslmode, owner_username,
        is_monitored, connection_error)
      values ('prod-db', '127.0.0.1', 5432, 'postgres', 'postgres', ${encryptSecret(secretKey, "x")}, 'disable', 'admin',
        true, 'connection error: connect ECONNREFUSED')`;
    await datastore.sql`
      insert into notification_channels (channel_type, name, endpoint_url, auth_type, is_estate_default)
      values ('webhook', 'hook', ${url}, 'none', true)`;
    alerter = startAlerter({
      datastore,
      logger: silentAlerterLogger,
      secretKey,
      clock: { now: () => now },
      hosts: createOutboundHostPolicy({ allowed: "127.0.0.1" }),
      timers: false,
    });
  }, 120_000);

  afterAll(async () => {
    await alerter?.stop();
    await datastore?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await server?.remove();
    process.off("unhandledRejection", onUnhandled);
  });

  it("records the send once the datastore is back instead of sending it again", async () => {
    await alerter.evaluate();
    // The send succeeds; the datastore stops before its outcome can be written.
    expect(await alerter.dispatch()).toBe(1);
    expect(received.map((body) => body.event)).toEqual(["alert_fire"]);

    await server.start();
    // Past the claim (120 s): the row would be claimed and sent again if its outcome were lost.
    now = new Date(now.getTime() + 600_000);
    expect(await alerter.dispatch()).toBe(0);
    expect(received.map((body) => body.event)).toEqual(["alert_fire"]);
    const history = await datastore.sql<{ status: string; attempt_count: number; attempts: number }[]>`
      select h.status, h.attempt_count,
        (select count(*)::int from notification_attempts a where a.notification_id = h.id) as attempts
      from notification_history h`;
    expect(history).toEqual([{ status: "sent", attempt_count: 1, attempts: 1 }]);
    expect(unhandled).toEqual([]);
  }, 60_000);
});
