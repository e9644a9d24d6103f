// The collector alone in a process of its own, so that its CPU time and memory can be measured.
import { startCollector } from "../packages/collector/src/index.js";
import { loadSecretKey, openDatastore } from "../packages/datastore/src/index.js";
import { reportMemoryEvery } from "./memory-lines.js";

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
// Its memory every 10 s (rss and V8 heap), to tell live data from garbage not yet collected.
reportMemoryEvery(10_000);
process.on("SIGTERM", () => {
  void collector
    .stop()
    .then(() => datastore.close())
    .finally(() => process.exit(0));
});
