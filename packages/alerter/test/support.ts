import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { type Datastore, encryptSecret } from "@dbmon/datastore";

import type { Harness } from "../src/testing/index.js";

export { createHarness, type Harness } from "../src/testing/index.js";

let serverCount = 0;

/**
 * A connection to a server of its own (an address of its own): connections at one address share
 * their server's rows (dbmon_server_connection), which tests giving each its own data must avoid.
 */
export async function addConnection(datastore: Datastore, name: string): Promise<number> {
  serverCount += 1;
  const [row] = await datastore.sql<{ id: number }[]>`
    insert into connections (name, host, hostaddr, port, database_name, username, owner_username)
    values (${name}, '127.0.0.1', ${`127.0.${Math.floor(serverCount / 250)}.${(serverCount % 250) + 1}`}, 5432,
      'postgres', 'postgres', 'admin') returning id`;
  return (row as { id: number }).id;
}

export async function ruleId(datastore: Datastore, name: string): Promise<number> {
  const [row] = await datastore.sql<{ id: number }[]>`select id from alert_rules where name = ${name}`;
  return (row as { id: number }).id;
}

export async function alertsOf(datastore: Datastore, rule?: string) {
  return datastore.sql<
    {
      id: number;
      status: string;
      severity: string;
      metric_value: number | null;
      title: string;
      object_name: string | null;
      database_name: string | null;
    }[]
  >`
    select a.id::int as id, a.status, a.severity, a.metric_value, a.title, a.object_name, a.database_name from alerts a
    left join alert_rules r on r.id = a.rule_id
    where ${rule === undefined ? datastore.sql`true` : datastore.sql`r.name = ${rule}`} order by a.id`;
}

export async function addWebhookChannel(
  harness: Harness,
  url: string,
  extra: { estateDefault?: boolean; type?: "webhook" | "slack" | "mattermost"; reminders?: boolean } = {},
): Promise<number> {
  const type = extra.type ?? "webhook";
  const [row] = await harness.datastore.sql<{ id: number }[]>`
    insert into notification_channels (channel_type, name, endpoint_url, webhook_url_encrypted, headers_encrypted, header_names,
      auth_type, auth_credentials_encrypted, is_estate_default, reminder_enabled, reminder_interval_hours)
    values (${type}, ${`${type} channel`}, ${type === "webhook" ? url : null},
      ${type === "webhook" ? null : encryptSecret(harness.secretKey, url)},
      ${encryptSecret(harness.secretKey, JSON.stringify({ "X-Team": "dba" }))}, ${["X-Team"]},
      'bearer', ${encryptSecret(harness.secretKey, "hook-token")}, ${extra.estateDefault ?? true}, ${extra.reminders ?? false}, 1)
    returning id`;
  return (row as { id: number }).id;
}

export interface ReceivedRequest {
  method: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

/** A local HTTP receiver: answers `status()` (200 by default) and records every request. */
export async function startReceiver(): Promise<{
  url: string;
  requests: ReceivedRequest[];
  respondWith(status: number): void;
  close(): Promise<void>;
}> {
  const requests: ReceivedRequest[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    let data = "";
    req.on("data", (chunk) => {
      data += chunk;
    });
    req.on("end", () => {
      requests.push({ method: req.method ?? "", headers: req.headers, body: data ? JSON.parse(data) : {} });
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "nope");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    requests,
    respondWith(next: number) {
      status = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

/**
 * A minimal SMTP sink (no TLS: it does not offer STARTTLS; no auth) that keeps every message it
 * receives and the verb of every command outside a message.
 */
export async function startSmtpSink(): Promise<{
  port: number;
  mails: ReceivedMail[];
  commands: string[];
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const commands: string[] = [];
  const server: TcpServer = createTcpServer((socket) => {
    let buffer = "";
    let inData = false;
    let mail: ReceivedMail = { from: "", to: [], data: "" };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 sink ESMTP");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let index = buffer.indexOf("\r\n");
      while (index >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            mails.push(mail);
            mail = { from: "", to: [], data: "" };
            reply("250 queued");
          } else {
            mail.data += `${line.startsWith("..") ? line.slice(1) : line}\n`;
          }
        } else {
          const command = line.slice(0, 4).toUpperCase();
          commands.push(line.split(" ", 1)[0]?.toUpperCase() ?? "");
          if (command === "EHLO" || command === "HELO") {
            reply("250 sink");
          } else if (command === "MAIL") {
            mail.from = line.slice(10).trim();
            reply("250 ok");
          } else if (command === "RCPT") {
            mail.to.push(line.slice(8).trim());
            reply("250 ok");
          } else if (command === "DATA") {
            inData = true;
            reply("354 go ahead");
          } else if (command === "STAR") {
            reply("502 5.5.1 STARTTLS not offered");
          } else if (command === "QUIT") {
            reply("221 bye");
            socket.end();
          } else {
            reply("250 ok");
          }
        }
        index = buffer.indexOf("\r\n");
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    mails,
    commands,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
