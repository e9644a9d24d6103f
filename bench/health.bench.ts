// GET /health on the full service (middleware, datastore ping) against a bare node:http JSON server.
import { createLogger, loadConfig, startService } from "../apps/api/src/index.js";
import { benchConfig } from "./datastore.js";
import { load, report, startBareJsonServer } from "./harness.js";

export async function run(): Promise<void> {
  const service = await startService(loadConfig(await benchConfig()), createLogger("silent"));
  const body = await (await fetch(`${service.url}/health`)).text();
  const bare = await startBareJsonServer(body);
  try {
    const baseline = await load("bare node:http (same body)", { url: bare.url });
    const health = await load("dbmon GET /health", { url: `${service.url}/health` });
    report("GET /health", [baseline, health]);
  } finally {
    await bare.close();
    await service.close();
  }
}
