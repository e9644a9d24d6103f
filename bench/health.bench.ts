// GET /health on the full app (middleware, datastore ping) against a bare node:http JSON server.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createApp, createLogger, loadConfig, systemClock } from "../apps/api/src/index.js";
import { openDatastore } from "../packages/datastore/src/index.js";
import { benchDatastoreOptions } from "./datastore.js";
import { load, report, startBareJsonServer } from "./harness.js";

export async function run(): Promise<void> {
  const datastore = await openDatastore(await benchDatastoreOptions());
  const config = loadConfig({});
  const app = createApp({ config, datastore, logger: createLogger("silent"), clock: systemClock });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const body = await (await fetch(`http://127.0.0.1:${port}/health`)).text();
  const bare = await startBareJsonServer(body);
  try {
    const baseline = await load("bare node:http (same body)", { url: bare.url });
    const health = await load("dbmon GET /health", { url: `http://127.0.0.1:${port}/health` });
    report("GET /health", [baseline, health]);
  } finally {
    await bare.close();
    server.close();
    await datastore.close();
  }
}
