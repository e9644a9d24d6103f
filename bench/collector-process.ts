// The collector alone in a process of its own, so that its CPU time and memory can be measured.
import { appendFileSync } from "node:fs";
import { startCollector } from "../packages/collector/src/index.js";
import { loadSecretKey, openDatastore } from "../packages/datastore/src/index.js";

const datastore = await openDatastore({
  databaseUrl: process.env.BENCH_DATASTORE_URL,
  dataDir: process.env.BENCH_SECRET_DIR ?? "",
  migrate: false,
  maxConnections: 10,
});
const collector = await startCollector({
  datastore,
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  secretKey: await loadSecretKey({ dataDir: process.env.BENCH_SECRET_DIR ?? "" }),
});
process.stdout.write("collector started\n");
// BENCH_COLLECTOR_MEMORY_FILE: the process's memory every 10 s, one JSON line each (rss and V8 heap),
// to tell live data from garbage not yet collected when the peak is high.
const memoryFile = process.env.BENCH_COLLECTOR_MEMORY_FILE;
if (memoryFile) {
  const started = Date.now();
  setInterval(() => {
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    const mb = (bytes: number) => Math.round(bytes / 1048576);
    appendFileSync(
      memoryFile,
      `${JSON.stringify({ s: Math.round((Date.now() - started) / 1000), rss: mb(rss), heapUsed: mb(heapUsed), heapTotal: mb(heapTotal), external: mb(external), arrayBuffers: mb(arrayBuffers) })}\n`,
    );
  }, 10_000).unref();
}
process.on("SIGTERM", () => {
  void collector
    .stop()
    .then(() => datastore.close())
    .finally(() => process.exit(0));
});
