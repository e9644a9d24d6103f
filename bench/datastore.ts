import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, loadConfig, startService } from "../apps/api/src/index.js";

/**
 * Environment for a benchmark's service: DBMON_DATABASE_URL when set, else an embedded datastore in
 * a fresh directory; a free port; quiet first-start output.
 */
export async function benchConfig(): Promise<NodeJS.ProcessEnv> {
  const dataDir = await mkdtemp(join(tmpdir(), "dbmon-bench-"));
  return {
    DBMON_DATABASE_URL: process.env.DBMON_DATABASE_URL,
    DBMON_DATA_DIR: dataDir,
    DBMON_PORT: "0",
    DBMON_EMBEDDED_PORT: "0",
    DBMON_ADMIN_PASSWORD: "bench-admin-password-0123",
    DBMON_LOG_LEVEL: "silent",
  };
}

/**
 * dbmon's API alone on a bench datastore, for benches that write their own data: no self-monitoring,
 * collector or alerter beside it. `close()` also removes the datastore's directory.
 */
export async function startApiOnly() {
  const env = await benchConfig();
  const service = await startService(
    loadConfig({ ...env, DBMON_MONITOR_SELF: "false", DBMON_COLLECTOR: "false", DBMON_ALERTER: "false" }),
    createLogger("silent"),
  );
  return {
    url: service.url,
    datastore: service.datastore,
    async close() {
      await service.close();
      await rm(env.DBMON_DATA_DIR as string, { recursive: true, force: true });
    },
  };
}
