import { fileURLToPath } from "node:url";
import { dbmonProject } from "@dbmon/vitest-config";
import { mergeConfig } from "vitest/config";

/*
 * `pnpm test:faults`: dbmon through faults (datastore restarts and terminated sessions, monitored
 * servers that restart, fail over or stall, a collector killed), as real processes on private
 * PostgreSQL servers. Not part of `pnpm test`: one file at a time, minutes of wall time.
 */
const root = fileURLToPath(new URL("../..", import.meta.url));

export default mergeConfig(dbmonProject("faults"), {
  root: fileURLToPath(new URL(".", import.meta.url)),
  test: {
    include: ["test/faults/**/*.test.ts"],
    setupFiles: ["./test/setup.ts"],
    globalSetup: [`${root}packages/datastore/src/testing/global-setup.ts`],
    // Each file runs several servers and processes: one at a time on two cores.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: `${root}test-results/faults.json` },
  },
});
