// GET /api/v1/server-info/{id} with a Bearer token (auth, RBAC, datastore reads) at 50 concurrent
// clients, next to a bare node:http server and a minimal Hono route answering a body of the same size.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createLogger, loadConfig, startService } from "../apps/api/src/index.js";
import { benchConfig } from "./datastore.js";
import { load, loginAdmin, report, startBareJsonServer } from "./harness.js";

export async function run(): Promise<void> {
  const service = await startService(loadConfig(await benchConfig()), createLogger("silent"));
  const token = await loginAdmin(service.url);
  const headers = { authorization: `Bearer ${token}` };
  const connectionId = await monitoredConnection(service.url, headers);
  const url = `${service.url}/api/v1/server-info/${connectionId}`;
  const body = await waitForCollection(url, headers);

  const bare = await startBareJsonServer(body);
  const hono = await startMinimalHono(body);
  try {
    const results = [
      await load("bare node:http (same body)", { url: bare.url }),
      await load("minimal Hono route (same body)", { url: hono.url }),
      await load("dbmon GET /server-info/{id}", { url, headers }),
    ];
    report(`GET /api/v1/server-info/{id} (${body.length} bytes)`, results);
    const [bareResult, honoResult, dbmon] = results;
    if (bareResult && honoResult && dbmon) {
      console.log(
        `\nserver-info throughput: ${pct(dbmon.requestsPerSecond / honoResult.requestsPerSecond)} of the minimal Hono route ` +
          `(goal ≥ 25%), ${pct(dbmon.requestsPerSecond / bareResult.requestsPerSecond)} of bare node:http; ` +
          `p99 ${dbmon.p99Ms} ms (goal < 50 ms)`,
      );
    }
  } finally {
    await bare.close();
    await hono.close();
    await service.close();
  }
}

function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

/** The embedded datastore's `local` connection, or one registered for DBMON_DATABASE_URL's server. */
async function monitoredConnection(base: string, headers: Record<string, string>): Promise<number> {
  const existing = (await (await fetch(`${base}/api/v1/connections`, { headers })).json()) as {
    id: number;
  }[];
  if (existing[0]) {
    return existing[0].id;
  }
  const target = new URL(process.env.DBMON_DATABASE_URL ?? "");
  const res = await fetch(`${base}/api/v1/connections`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({
      name: "bench",
      host: target.hostname,
      port: Number(target.port || 5432),
      database_name: target.pathname.slice(1) || "postgres",
      username: decodeURIComponent(target.username),
      password: decodeURIComponent(target.password) || "unused",
    }),
  });
  return ((await res.json()) as { id: number }).id;
}

async function waitForCollection(url: string, headers: Record<string, string>): Promise<string> {
  for (let waited = 0; waited < 120_000; waited += 1000) {
    const text = await (await fetch(url, { headers })).text();
    const info = JSON.parse(text) as { dbserver: { version: string | null }; databases: unknown[] };
    if (info.dbserver.version && info.databases.length > 0) {
      return text;
    }
    await new Promise((ready) => setTimeout(ready, 1000));
  }
  throw new Error("the collector gathered no server information within two minutes");
}

async function startMinimalHono(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Hono().get("/", (c) => c.body(body, 200, { "content-type": "application/json" }));
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
