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
 * CPU seconds used so far by each server process of the bench's database, with the session's
 * application_name (from /proc, so only for a datastore on this machine): a task's cost in datastore
 * core time, which on a loaded machine is well below its wall time.
 */
export async function datastoreCpuSeconds(
  sql: Sql,
): Promise<Map<number, { application: string; cpuSeconds: number }>> {
  const sessions = await sql<{ pid: number; application: string }[]>`
    select pid, application_name as application from pg_stat_activity where datname = current_database()`;
  const seconds = new Map<number, { application: string; cpuSeconds: number }>();
  for (const { pid, application } of sessions) {
    try {
      seconds.set(pid, { application, cpuSeconds: cpuSeconds(pid) });
    } catch {
      // Not on this machine, or gone.
    }
  }
  return seconds;
}

/**
 * Datastore CPU seconds between two readings of `datastoreCpuSeconds` (of the sessions named
 * `application` only, when given); a session absent from `before` counts from its start.
 */
export function datastoreCpuBetween(
  before: Map<number, { cpuSeconds: number }>,
  after: Map<number, { application: string; cpuSeconds: number }>,
  application?: string,
): number {
  return [...after]
    .filter(([, session]) => application === undefined || session.application === application)
    .reduce((sum, [pid, session]) => sum + session.cpuSeconds - (before.get(pid)?.cpuSeconds ?? 0), 0);
}
