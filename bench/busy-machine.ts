// A CPU and I/O load of the benchmark's own, so that a result holds on a machine doing other work:
// the fleet's alerter passes were 1.6 s on a quiet machine and 36–79 s on a busy one (bench/README.md).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Child, startChild, stopChild } from "./processes.js";

export interface BusyMachine {
  /** What the load is, for the report. */
  description: string;
  stop(): Promise<void>;
}

/**
 * `cpus` processes each spinning `duty` of the time, and one writing `ioMbPerSecond` with an
 * fdatasync per megabyte into the temporary directory (the datastore's disk on a one-disk machine).
 */
export async function startBusyMachine(options: {
  cpus: number;
  duty: number;
  ioMbPerSecond: number;
}): Promise<BusyMachine> {
  const dir = await mkdtemp(join(tmpdir(), "dbmon-bench-busy-"));
  const children: Child[] = [];
  const stop = async () => {
    await Promise.all(children.map(stopChild));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let cpu = 0; cpu < options.cpus; cpu += 1) {
      children.push(
        (await startChild("busy", { BENCH_BUSY: "cpu", BENCH_BUSY_DUTY: String(options.duty) })).child,
      );
    }
    if (options.ioMbPerSecond > 0) {
      children.push(
        (
          await startChild("busy", {
            BENCH_BUSY: "io",
            BENCH_BUSY_IO_MB: String(options.ioMbPerSecond),
            BENCH_BUSY_DIR: dir,
          })
        ).child,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    description:
      options.cpus === 0 && options.ioMbPerSecond === 0
        ? "none"
        : `${options.cpus} × ${Math.round(options.duty * 100)} % of a core, ${options.ioMbPerSecond} MB/s written with fdatasync per MB`,
    stop,
  };
}
