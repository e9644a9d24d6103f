import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*"],
    globalSetup: ["./packages/datastore/src/testing/global-setup.ts"],
    // Two cores: keep the number of test workers (and their databases) small.
    maxWorkers: 2,
    // CI reads the JSON report to print its "N passed, N failed" line.
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: "test-results/vitest.json" },
  },
});
