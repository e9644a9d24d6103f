// Builds what `dbmon serve` needs before `pnpm start` runs it: the API bundle only. It bundles the
// other workspace packages from their sources (tsup.config.ts), so their own builds (the contract's
// and the client's declarations, minutes on a slow machine) are not needed to serve; apps/api/turbo.json
// makes its build hash cover their sources instead of waiting for their builds. Through turbo, so an
// unchanged tree is a cache hit. Turbo's own summary is noise to someone starting the server: it is
// shown only when the build fails, with the failing task's log. Plain JavaScript: nothing to compile.
import { spawnSync } from "node:child_process";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));
// The workspace's own turbo, also when this runs outside a pnpm script.
const path = [join(root, "node_modules", ".bin"), process.env.PATH].join(delimiter);
const started = Date.now();
process.stdout.write("Building the dbmon server… ");
const build = spawnSync("turbo", ["run", "build", "--filter=@dbmon/api", "--output-logs=errors-only"], {
  cwd: root,
  encoding: "utf8",
  // The first run on a machine would otherwise print Turborepo's telemetry notice.
  env: { ...process.env, PATH: path, TURBO_TELEMETRY_DISABLED: "1" },
});
if (build.status !== 0) {
  process.stdout.write("failed\n");
  process.stdout.write(build.stdout ?? "");
  process.stderr.write(build.stderr ?? String(build.error ?? ""));
  process.exit(build.status ?? 1);
}
console.log(`done (${((Date.now() - started) / 1000).toFixed(1)} s)`);
