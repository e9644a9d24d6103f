import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  // The SQL parser's worker thread is loaded by file name (sql/parser.ts), beside the other bundles.
  entry: { cli: "src/cli.ts", index: "src/index.ts", "sql-parse-worker": "src/sql/parse-worker.ts" },
  format: ["esm"],
  clean: true,
  sourcemap: true,
  target: "node20",
  // Workspace packages ship TypeScript sources: bundle them (they are devDependencies, so npm never
  // looks for them when it installs the published package); everything from npm stays external. tsup
  // takes "external" from this package's dependencies, so every npm package a bundled workspace
  // package imports must be listed there too (voyageai, bundled, fails on its optional imports).
  // postgres.js too: dbmon runs it with a patch (patches/, porsager/postgres#1223) that an npm install
  // of the published package would not apply. Drizzle's own import of it stays external (unused).
  noExternal: [/^@dbmon\//, "postgres"],
  banner: { js: "#!/usr/bin/env node" },
  async onSuccess() {
    // The datastore finds its migrations beside the module that runs them: now this bundle.
    cpSync("../../packages/datastore/src/migrations", "dist/migrations", { recursive: true });
    // The knowledge base's corpus (knowledge-base/corpus.ts), indexed at start-up: nothing is fetched.
    cpSync("../../README.md", "dist/knowledge-base/README.md");
    cpSync("../../docs", "dist/knowledge-base/docs", { recursive: true });
  },
});
