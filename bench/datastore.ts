import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
