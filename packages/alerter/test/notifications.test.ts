import { encryptSecret } from "@dbmon/datastore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addConnection,
  addWebhookChannel,
  createHarness,
  type Harness,
  startReceiver,
  startSmtpSink,
} from "./support.js";

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  h = await createHarness();
  receiver = await startReceiver();
  smtp = await startSmtpSink();
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await smtp?.close();
  await h?.close();
});

async function breakConnection(id: number, error: string | null) {
  await h.datastore.sql`update connections set connection_error = ${error} where id = ${id}`;
}

const history = () =>
  h.datastore.sql<
    {
      notification_type: string;
      status: string;
      attempt_count: number;
      channel_id: number;
      next_retry_at: string;
    }[]
  >`
    select notification_type, status, attempt_count, channel_id, next_retry_at from notification_history order by id`;

describe("notifications", () => {
  it("delivers fire and clear to a webhook, Slack-style channel and email, with headers, auth and redacted nothing missing", async () => {
    const alerter = h.alerter();
    h.clock.set(new Date("2026-06-01T10:00:00Z"));
    const connectionId = await addConnection(h.datastore, "prod-db", { port: 5432 });
    const webhook = await addWebhookChannel(h, receiver.url);
    const slack = await addWebhookChannel(h, receiver.url.replace("/hook", "/slack"), { type: "slack" });
    const [email] = await h.datastore.sql<{ id: number }[]>`
      insert into notification_channels (channel_type, name, smtp_host, smtp_port, smtp_use_tls, from_address, from_name, is_estate_default)
      values ('email', 'mail', '127.0.0.1', ${smtp.port}, false, 'dbmon@example.com', 'dbmon', true) returning id`;
    await h.datastore
      .sql`insert into email_recipients (channel_id, email_address) values (${email?.id ?? 0}, 'dba@example.com')`;

    await breakConnection(connectionId, "connection error: connect ECONNREFUSED");
    await alerter.evaluate();
    expect(await alerter.dispatch()).toBe(3);
    const fire = receiver.requests.find((r) => r.body.event === "alert_fire");
    expect(fire?.headers.authorization).toBe("Bearer hook-token");
    expect(fire?.headers["x-team"]).toBe("dba");
    expect(fire?.body).toMatchObject({
      event: "alert_fire",
      title: "Connection error: prod-db",
      description: "connection error: connect ECONNREFUSED",
      severity: "critical",
      server: { name: "prod-db", host: "127.0.0.1", port: 5432 },
      triggered_at: "2026-06-01T10:00:00.000Z",
    });
    const slackFire = receiver.requests.find((r) => typeof r.body.text === "string");
    expect(String(slackFire?.body.text)).toContain("Connection error: prod-db");
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]?.to).toEqual(["<dba@example.com>"]);
    expect(smtp.mails[0]?.data).toContain("Subject: [CRITICAL] Alert: Connection error: prod-db");

    h.clock.advance(3725);
    await breakConnection(connectionId, null);
    await alerter.evaluate();
    expect(await alerter.dispatch()).toBe(3);
    const clear = receiver.requests.find((r) => r.body.event === "alert_clear");
    expect(clear?.body).toMatchObject({
      event: "alert_clear",
      duration: "1h 2m",
      cleared_at: "2026-06-01T11:02:05.000Z",
    });
    expect(smtp.mails[1]?.data).toContain("Subject: [RESOLVED] Connection error: prod-db");
    expect((await history()).every((n) => n.status === "sent")).toBe(true);
    expect(await alerter.dispatch()).toBe(0);
    await h.datastore
      .sql`delete from notification_channels where id in (${webhook}, ${slack}, ${email?.id ?? 0})`;
  });

  it("channel overrides: a server override disables an estate default, another enables a non-default channel", async () => {
    const alerter = h.alerter();
    const connectionId = await addConnection(h.datastore, "quiet-db");
    const estate = await addWebhookChannel(h, receiver.url);
    const opt = await addWebhookChannel(h, receiver.url, { estateDefault: false });
    await h.datastore.sql`insert into notification_channel_overrides (channel_id, scope, scope_id, enabled)
      values (${estate}, 'server', ${connectionId}, false), (${opt}, 'server', ${connectionId}, true)`;
    await h.datastore.sql`delete from notification_history`;
    await breakConnection(connectionId, "connection error: down");
    await alerter.evaluate();
    const queued = await history();
    expect(queued.map((n) => n.channel_id)).toEqual([opt]);
    await alerter.dispatch();
    await breakConnection(connectionId, null);
    await alerter.evaluate();
    await alerter.dispatch();
    await h.datastore.sql`delete from notification_channels where id in (${estate}, ${opt})`;
  });

  it("retries after failures with 5, 15 and 60 minute backoffs, keeping every attempt", async () => {
    const alerter = h.alerter();
    const connectionId = await addConnection(h.datastore, "flaky-db");
    const channel = await addWebhookChannel(h, receiver.url);
    await h.datastore.sql`delete from notification_history`;
    receiver.respondWith(500);
    const start = h.clock.now();
    await breakConnection(connectionId, "connection error: refused");
    await alerter.evaluate();
    expect(await alerter.dispatch()).toBe(1);
    let [row] = await history();
    expect(row).toMatchObject({ status: "retrying", attempt_count: 1 });
    expect(new Date(row?.next_retry_at ?? 0).getTime() - start.getTime()).toBe(5 * 60_000);
    h.clock.advance(4 * 60);
    expect(await alerter.dispatch()).toBe(0);
    h.clock.advance(60);
    expect(await alerter.dispatch()).toBe(1);
    [row] = await history();
    expect(row).toMatchObject({ status: "retrying", attempt_count: 2 });
    receiver.respondWith(200);
    h.clock.advance(15 * 60);
    expect(await alerter.dispatch()).toBe(1);
    [row] = await history();
    expect(row).toMatchObject({ status: "sent", attempt_count: 3 });
    const attempts = await h.datastore
      .sql`select attempt, succeeded, response_code from notification_attempts order by id`;
    expect(attempts.slice(-3)).toEqual([
      { attempt: 1, succeeded: false, response_code: 500 },
      { attempt: 2, succeeded: false, response_code: 500 },
      { attempt: 3, succeeded: true, response_code: 200 },
    ]);
    // A receiver that keeps failing: failed after the fourth attempt.
    receiver.respondWith(503);
    await breakConnection(connectionId, null);
    await alerter.evaluate();
    for (const minutes of [0, 5, 15, 60]) {
      h.clock.advance(minutes * 60);
      expect(await alerter.dispatch()).toBe(1);
    }
    const [, clear] = await history();
    expect(clear).toMatchObject({ notification_type: "alert_clear", status: "failed", attempt_count: 4 });
    receiver.respondWith(200);
    await h.datastore.sql`delete from notification_channels where id = ${channel}`;
  });

  it("sends reminders for long-active alerts", async () => {
    const alerter = h.alerter();
    const connectionId = await addConnection(h.datastore, "long-db");
    const channel = await addWebhookChannel(h, receiver.url, { reminders: true });
    await breakConnection(connectionId, "connection error: gone");
    await alerter.evaluate();
    await alerter.dispatch();
    expect(await alerter.remind()).toBe(0);
    h.clock.advance(61 * 60);
    expect(await alerter.remind()).toBe(1);
    expect(await alerter.remind()).toBe(0);
    await alerter.dispatch();
    const reminder = receiver.requests.filter((r) => r.body.event === "reminder").at(-1);
    expect(reminder?.body).toMatchObject({
      event: "reminder",
      title: "Connection error: long-db",
      reminder_count: 1,
    });
    h.clock.advance(61 * 60);
    expect(await alerter.remind()).toBe(1);
    await breakConnection(connectionId, null);
    await alerter.evaluate();
    await alerter.dispatch();
    await h.datastore.sql`delete from notification_channels where id = ${channel}`;
  });

  it("two alerters on one datastore open one alert and send each notification once", async () => {
    const first = h.alerter();
    const second = h.alerter();
    const connectionId = await addConnection(h.datastore, "shared-db");
    const channel = await addWebhookChannel(h, receiver.url);
    const before = receiver.requests.length;
    await breakConnection(connectionId, "connection error: refused");
    await Promise.all([first.evaluate(), second.evaluate(), first.evaluate(), second.evaluate()]);
    const sent = await Promise.all([
      first.dispatch(),
      second.dispatch(),
      first.dispatch(),
      second.dispatch(),
    ]);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(1);
    const alerts = await h.datastore.sql`select id from alerts where connection_id = ${connectionId}`;
    expect(alerts).toHaveLength(1);
    expect(receiver.requests.length - before).toBe(1);
    await breakConnection(connectionId, null);
    await Promise.all([first.evaluate(), second.evaluate()]);
    await Promise.all([first.dispatch(), second.dispatch()]);
    expect(receiver.requests.length - before).toBe(2);
    await h.datastore.sql`delete from notification_channels where id = ${channel}`;
  });

  it("notifications carry measured values as people read them: 99.17, not 99.16666666666667", async () => {
    const { alertFacts } = await import("../src/notify/queue.js");
    const connectionId = await addConnection(h.datastore, "rounding-db");
    const [alert] = await h.datastore.sql<{ id: number }[]>`
      insert into alerts (alert_type, connection_id, metric_name, metric_value, threshold_value, operator, severity, title)
      values ('threshold', ${connectionId}, 'cache_hit_ratio', 99.16666666666667, 0.000123456, '>', 'warning', 'Rounding')
      returning id::int`;
    const facts = await alertFacts(h.datastore.sql, alert?.id ?? 0);
    expect(facts).toMatchObject({ metricValue: 99.17, thresholdValue: 0.000123 });
  });

  it("refuses private and metadata hosts unless allowed", async () => {
    const { deliver, loadChannels } = await import("../src/index.js");
    const { createOutboundHostPolicy } = await import("@dbmon/monitoring");
    const [row] = await h.datastore.sql<{ id: number }[]>`
      insert into notification_channels (channel_type, name, webhook_url_encrypted)
      values ('mattermost', 'mm', ${encryptSecret(h.secretKey, receiver.url)}) returning id`;
    const [channel] = await loadChannels(h.datastore.sql, h.secretKey, [row?.id ?? 0]);
    const message = { json: { text: "x" }, subject: "", html: "", text: "" };
    await expect(
      deliver(channel as NonNullable<typeof channel>, message, createOutboundHostPolicy({})),
    ).rejects.toThrow("Invalid webhook host");
    expect(
      (
        await deliver(
          channel as NonNullable<typeof channel>,
          message,
          createOutboundHostPolicy({ allowed: "127.0.0.1" }),
        )
      ).ok,
    ).toBe(true);
  });
});
