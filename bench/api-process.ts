// dbmon's API alone in a process of its own (configured by its environment, as `dbmon` reads it),
// so that a load benchmark can measure its resident memory apart from the load generator's. Prints
// `api started <url>`, then its memory every second as one JSON line.
import { createLogger, loadConfig, startService } from "../apps/api/src/index.js";
import { reportMemoryEvery } from "./memory-lines.js";

const service = await startService(loadConfig(process.env), createLogger("silent"));
process.stdout.write(`api started ${service.url}\n`);
reportMemoryEvery(1000);
process.on("SIGTERM", () => {
  void service.close().finally(() => process.exit(0));
});
