import { createServer as createHttpServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { createHostPolicy } from "@dbmon/monitoring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Channel, deliver } from "../src/index.js";
import { startSmtpSink } from "./support.js";

/**
 * DNS rebinding: a name that resolves to an allowed address when checked and to a forbidden one
 * afterwards. Deliveries must connect to the address that was checked, never resolve the name again.
 */
function rebindingPolicy() {
  const lookups: string[] = [];
  const policy = createHostPolicy({
    allowed: "127.0.0.1",
    resolve: async (host) => {
      lookups.push(host);
      return lookups.length === 1 ? ["127.0.0.1"] : ["169.254.169.254"];
    },
  });
  return { policy, lookups };
}

const channel = (fields: Partial<Channel>): Channel => ({
  id: 1,
  channelType: "webhook",
  name: "hook",
  webhookUrl: null,
  endpointUrl: null,
  httpMethod: "POST",
  headers: {},
  authType: null,
  authCredentials: null,
  smtpHost: null,
  smtpPort: 587,
  smtpUsername: null,
  smtpPassword: null,
  smtpUseTls: false,
  fromAddress: "dbmon@example.com",
  fromName: null,
  templates: { fire: null, clear: null, reminder: null },
  reminderEnabled: false,
  reminderIntervalHours: 4,
  recipients: ["dba@example.com"],
  ...fields,
});

const message = { json: { text: "hello" }, subject: "s", html: "<p>h</p>", text: "h" };

describe("outbound notifications", () => {
  let http: Server;
  let port: number;
  const received: string[] = [];
  let endlessStopped = false;

  beforeAll(async () => {
    http = createHttpServer((req, res) => {
      received.push(`${req.headers.host} ${req.url}`);
      if (req.url === "/endless") {
        // An answer that never ends: the sender must stop reading it.
        res.writeHead(500, { "content-type": "text/plain" });
        const chunk = Buffer.alloc(64 * 1024, "x");
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {}
          if (!res.destroyed) {
            res.once("drain", pump);
          }
        };
        res.on("close", () => {
          endlessStopped = true;
        });
        pump();
        return;
      }
      req.resume();
      res.end("ok");
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    port = (http.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

  it("connect a webhook to the address that was vetted, not to a second answer of the name", async () => {
    const { policy, lookups } = rebindingPolicy();
    const delivery = await deliver(
      channel({ endpointUrl: `http://hooks.rebind.test:${port}/hook` }),
      message,
      policy,
    );
    expect(delivery).toEqual({ ok: true, responseCode: 200 });
    expect(lookups).toEqual(["hooks.rebind.test"]);
    expect(received).toContain(`hooks.rebind.test:${port} /hook`);
  });

  it("read at most 64 KiB of a receiver's answer", async () => {
    const policy = createHostPolicy({ allowed: "127.0.0.1" });
    const started = Date.now();
    const delivery = await deliver(
      channel({ endpointUrl: `http://127.0.0.1:${port}/endless` }),
      message,
      policy,
    );
    expect(delivery.ok).toBe(false);
    expect(delivery.responseCode).toBe(500);
    expect(delivery.error).toBe(`HTTP 500: ${"x".repeat(500)}`);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect.poll(() => endlessStopped).toBe(true);
  });

  it("require TLS on every port when smtp_use_tls is set: no STARTTLS offered, nothing sent in plain text", async () => {
    const policy = createHostPolicy({ allowed: "127.0.0.1" });
    const sink = await startSmtpSink();
    try {
      const delivery = await deliver(
        channel({
          channelType: "email",
          smtpHost: "127.0.0.1",
          smtpPort: sink.port,
          smtpUseTls: true,
          smtpUsername: "dbmon",
          smtpPassword: "smtp-secret",
        }),
        message,
        policy,
      );
      expect(delivery.ok).toBe(false);
      expect(delivery.error).toMatch(/STARTTLS/);
      expect(sink.commands.filter((command) => command !== "QUIT")).toEqual(["EHLO", "STARTTLS"]);
      expect(sink.mails).toHaveLength(0);
    } finally {
      await sink.close();
    }
  });

  it("connect SMTP to the vetted address", async () => {
    const { policy, lookups } = rebindingPolicy();
    const mails: string[] = [];
    const smtp = createTcpServer((socket) => {
      socket.write("220 test ESMTP\r\n");
      let data = false;
      let mail = "";
      socket.on("data", (chunk) => {
        for (const line of chunk.toString().split("\r\n").filter(Boolean)) {
          if (data) {
            if (line === ".") {
              data = false;
              mails.push(mail);
              socket.write("250 queued\r\n");
            } else {
              mail += `${line}\n`;
            }
          } else if (/^DATA/i.test(line)) {
            data = true;
            socket.write("354 go\r\n");
          } else if (/^QUIT/i.test(line)) {
            socket.end("221 bye\r\n");
          } else if (/^EHLO/i.test(line)) {
            socket.write("250 test\r\n");
          } else {
            socket.write("250 ok\r\n");
          }
        }
      });
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    try {
      const delivery = await deliver(
        channel({
          channelType: "email",
          smtpHost: "mail.rebind.test",
          smtpPort: (smtp.address() as AddressInfo).port,
        }),
        message,
        policy,
      );
      expect(delivery).toEqual({ ok: true });
      expect(lookups).toEqual(["mail.rebind.test"]);
      expect(mails).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});
