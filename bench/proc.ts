// What benchmarks read from /proc: a process's CPU time and memory, and the CPU time of the
// datastore's server processes (Linux only; a datastore on another machine is not visible).
import { readFileSync } from "node:fs";
import type { Sql } from "../packages/datastore/src/index.js";

/** USER_HZ on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process in seconds: fields 14 and 15, after the parenthesised command name. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** CPU seconds used so far, resident memory and its high-water mark (bytes) of a process. */
export function processUsage(pid: number): { cpuSeconds: number; rssBytes: number; peakRssBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kilobytes = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { cpuSeconds: cpuSeconds(pid), rssBytes: kilobytes("VmRSS"), peakRssBytes: kilobytes("VmHWM") };
}

/**
 * CPU seconds used so far by each server process of the bench's database (from /proc, so only for a
 * datastore on this machine): a task's cost in datastore core time, which on a loaded machine is
 * well below its wall time.
 */
export async function datastoreCpuSeconds(sql: Sql): Promise<Map<number, number>> {
  const pids = await sql<
    { pid: number }[]
  >`select pid from pg_stat_activity where datname = current_database()`;
  const seconds = new Map<number, number>();
  for (const { pid } of pids) {
    try {
      seconds.set(pid, cpuSeconds(pid));
    } catch {
      // Not on this machine, or gone.
    }
  }
  return seconds;
}

/** Datastore CPU seconds between two readings of `datastoreCpuSeconds`. */
export function datastoreCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  return [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0);
}
