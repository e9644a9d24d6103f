// A process that keeps the machine busy for `pnpm bench fleet` (bench/busy-machine.ts): BENCH_BUSY=cpu
// burns a core for BENCH_BUSY_DUTY of every 100 ms; BENCH_BUSY=io writes BENCH_BUSY_IO_MB megabytes a
// second to a file in BENCH_BUSY_DIR, each megabyte followed by fdatasync, rewriting the file from its
// start every 256 MB so that the disk fills no further.
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";

const SLICE_MS = 100;
const MB = 1024 * 1024;
const FILE_MB = 256;

if (process.env.BENCH_BUSY === "io") {
  const perSecond = Number(process.env.BENCH_BUSY_IO_MB ?? 20);
  const fd = openSync(join(process.env.BENCH_BUSY_DIR ?? ".", `busy-${process.pid}`), "w");
  const chunk = Buffer.alloc(MB, 7);
  let written = 0;
  setInterval(() => {
    for (let i = 0; i < perSecond / 10; i += 1) {
      writeSync(fd, chunk, 0, MB, (written % FILE_MB) * MB);
      fdatasyncSync(fd);
      written += 1;
    }
  }, SLICE_MS);
  process.on("SIGTERM", () => {
    closeSync(fd);
    process.exit(0);
  });
} else {
  const busyMs = SLICE_MS * Number(process.env.BENCH_BUSY_DUTY ?? 0.5);
  setInterval(() => {
    const until = performance.now() + busyMs;
    while (performance.now() < until) {
      // Spinning is the point.
    }
  }, SLICE_MS);
  process.on("SIGTERM", () => process.exit(0));
}
process.stdout.write("busy started\n");
