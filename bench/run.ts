// `pnpm bench [name...]`: runs bench/*.bench.ts (or the named ones) one after another; `fleet` and
// `soak` only when named.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const wanted = process.argv.slice(2);
/** Run only when named: `fleet` takes a quarter of an hour and the whole machine, `soak` an hour. */
const ON_REQUEST = ["fleet.bench.ts", "soak.bench.ts"];
const files = readdirSync(dir)
  .filter((file) => file.endsWith(".bench.ts"))
  .filter((file) =>
    wanted.length === 0 ? !ON_REQUEST.includes(file) : wanted.some((name) => file.startsWith(name)),
  )
  .sort();

console.log(`# dbmon benchmarks (${process.env.BENCH_DURATION_SECONDS ?? 10} s per target, 50 connections)`);
for (const file of files) {
  const module = (await import(`./${file}`)) as { run(): Promise<void> };
  await module.run();
}
