// The alerter alone in a process of its own, as `dbmon alerter` runs it, so that its CPU time and
// memory can be measured. Each evaluation pass and baseline calculation is reported on stdout as one
// JSON line for the benchmark to read, and so are warnings and errors.
import { startAlerter } from "../packages/alerter/src/index.js";
import { loadSecretKey, openDatastore } from "../packages/datastore/src/index.js";
import { reportMemoryEvery } from "./memory-lines.js";

const report = (event: string, entry: object) =>
  process.stdout.write(`${JSON.stringify({ event, at: Date.now(), ...entry })}\n`);

/** A warning or error: its message and what it was about (the metric, the task), counted by the benchmark. */
const problem = (entry: { metric?: string; task?: string; err?: unknown }, message: string) =>
  report("problem", {
    message: [message, entry.metric ?? entry.task].filter(Boolean).join(": "),
    detail: entry.err instanceof Error ? entry.err.message : undefined,
  });

const datastore = await openDatastore({
  databaseUrl: process.env.BENCH_DATASTORE_URL,
  dataDir: process.env.BENCH_SECRET_DIR ?? "",
  migrate: false,
});
const alerter = startAlerter({
  datastore,
  logger: {
    debug(entry, message) {
      if (message === "rules evaluated") {
        report("evaluation", entry);
      }
    },
    info(entry, message) {
      if (message === "anomaly baselines calculated") {
        report("baselines", entry);
      }
    },
    warn: problem,
    error: problem,
  },
  secretKey: await loadSecretKey({ dataDir: process.env.BENCH_SECRET_DIR ?? "" }),
});
process.stdout.write("alerter started\n");
reportMemoryEvery(10_000);
process.on("SIGTERM", () => {
  void alerter
    .stop()
    .then(() => datastore.close())
    .finally(() => process.exit(0));
});
