import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatastoreConfig } from "../packages/datastore/src/index.js";

/** Benchmarks use DBMON_DATABASE_URL when set, else an embedded server in a fresh directory. */
export async function benchDatastoreOptions(): Promise<DatastoreConfig> {
  const databaseUrl = process.env.DBMON_DATABASE_URL;
  if (databaseUrl) {
    return { databaseUrl, dataDir: "" };
  }
  return { dataDir: await mkdtemp(join(tmpdir(), "dbmon-bench-")), embeddedPort: 0 };
}
