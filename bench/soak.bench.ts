// `pnpm bench soak`: the fleet for an hour with a dashboard's load on the API. BENCH_SOAK_DATABASES
// (1,000) databases on clusters of BENCH_SOAK_DATABASES_PER_CLUSTER (100), monitored for
// BENCH_SOAK_SECONDS (3,600) by the collector and the alerter, each in a process of its own, beside
// the API in a third (its collector and alerter off), which holds BENCH_SOAK_STREAMS (200) overview
// streams and answers BENCH_SOAK_RATE (50) mixed reads a second (bench/api-load.ts), with a light
// load on the databases. Every minute it prints each process's resident memory, V8 heap in use and
// open descriptors, and the datastore's sessions of each. Goal: flat after the warm-up
// (BENCH_SOAK_WARM_UP_SECONDS, 600): the last quarter-hour's medians at most 10 % or 16 MB (heap floor,
// RSS) or 5 (descriptors, sessions) above the first quarter-hour's after the warm-up.
import { fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import type { Sql } from "../packages/datastore/src/index.js";
import {
  dashboardReads,
  fixedRate,
  openStreams,
  type Sample,
  startApiProcess,
  streamTokens,
} from "./api-load.js";
import { startFleetLoad } from "./fleet-databases.js";
import { setUpFleet } from "./fleet-setup.js";
import { loginAdmin, percentile } from "./harness.js";
import { memoryLine } from "./memory-lines.js";
import { processUsage } from "./proc.js";
import { type Child, Cleanup, descriptors, exited, startChild, stopChild } from "./processes.js";

const DATABASES = Number(process.env.BENCH_SOAK_DATABASES ?? 1000);
const PER_CLUSTER = Number(process.env.BENCH_SOAK_DATABASES_PER_CLUSTER ?? 100);
const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 3600);
const WARM_UP_SECONDS = Number(process.env.BENCH_SOAK_WARM_UP_SECONDS ?? Math.min(600, SECONDS / 3));
const STREAMS = Number(process.env.BENCH_SOAK_STREAMS ?? 200);
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 50);
const MINUTE_SECONDS = 60;
const SLICE_SECONDS = 10;
/** How many minutes the first and last windows compared for flatness hold. */
const WINDOW_MINUTES = 15;
const ADMIN_PASSWORD = "soak-admin-password-0123";
const MB = 1024 * 1024;
const PROCESSES = ["api", "collector", "alerter"] as const;
type ProcessName = (typeof PROCESSES)[number];

interface ProcessReading {
  rssMb: number;
  heapMb: number;
  fds: number;
  sessions: number;
}

interface Minute {
  minute: number;
  readings: Record<ProcessName, ProcessReading>;
  reads: number;
  p99Ms: number;
  errors: number;
  streams: number;
}

/** The datastore's sessions of each process (named `fleet <process>`). */
async function sessionsByProcess(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql<{ application: string; sessions: number }[]>`
    select application_name as application, count(*)::int as sessions from pg_stat_activity
    where datname = current_database() group by 1`;
  return new Map(rows.map((row) => [row.application, row.sessions]));
}

const median = (values: number[]) => percentile(values, 50);

export async function run(): Promise<void> {
  await new Cleanup("soak").around(measure);
}

async function measure(cleanup: Cleanup): Promise<void> {
  console.log(
    `\n## Soak: ${DATABASES} databases for ${SECONDS} s, the API holding ${STREAMS} overview streams and answering ${RATE} reads/s`,
  );
  const fleet = await setUpFleet(cleanup, DATABASES, PER_CLUSTER);
  const { sql } = fleet.datastore;
  console.log(`setup ${fleet.setupSeconds.toFixed(0)} s (clusters, databases, datastore)`);
  const load = startFleetLoad(fleet.clusters, { workers: 4, perSecond: 5, dwellSeconds: 10 });
  cleanup.add("stop the load", () => load.stop());
  const fake = await startFakeProvider();
  cleanup.add("stop the fake LLM provider", () => fake.close());
  fake.answerAll({ text: "The estate is healthy: no alerts, every server reachable." });

  // The lowest heap in use each process reported this minute: what stays after collections, so a
  // leak shows as a rising floor whatever the collector's timing.
  const heapFloor: Record<ProcessName, number> = { api: 0, collector: 0, alerter: 0 };
  const heapSeen = (name: ProcessName, heapUsed: number) => {
    heapFloor[name] = heapFloor[name] === 0 ? heapUsed : Math.min(heapFloor[name], heapUsed);
  };
  const onLine = (name: ProcessName) => (line: string) => {
    const memory = memoryLine(line);
    if (memory) {
      heapSeen(name, memory.heapUsed);
    }
  };
  const children = {} as Record<ProcessName, Child>;
  for (const name of ["collector", "alerter"] as const) {
    children[name] = (await startChild(name, fleet.childEnv(name), onLine(name))).child;
    cleanup.add(`stop the ${name}`, () => stopChild(children[name]));
  }
  const api = await startApiProcess(
    {
      ...fakeProviderEnv(fake, "openai"),
      DBMON_DATABASE_URL: fleet.childEnv("api").BENCH_DATASTORE_URL,
      DBMON_DATA_DIR: fleet.secretDir,
      DBMON_PORT: "0",
      DBMON_ADMIN_PASSWORD: ADMIN_PASSWORD,
      DBMON_LOG_LEVEL: "silent",
      DBMON_MONITOR_SELF: "false",
      DBMON_COLLECTOR: "false",
      DBMON_ALERTER: "false",
    },
    (memory) => heapSeen("api", memory.heapUsed),
  );
  children.api = api.child;
  cleanup.add("stop the API", () => stopChild(api.child));
  const admin = await loginAdmin(api.url, ADMIN_PASSWORD);
  const streams = await openStreams(api.url, await streamTokens(api.url, admin, STREAMS), STREAMS);
  cleanup.add("close the streams", async () => streams.closeAll());
  const ids = (await sql<{ id: number }[]>`select id from connections order by id`).map((row) => row.id);
  const reads = dashboardReads(api.url, ids);

  const headers = { authorization: `Bearer ${admin}` };
  const minutes: Minute[] = [];
  let sent = 0;
  const started = Date.now();
  console.log(
    "| minute | API RSS / heap floor MB, descriptors, sessions | collector | alerter | reads, p99 ms, errors | streams open |",
  );
  console.log("|---|---|---|---|---|---|");
  for (let minute = 1; minute * MINUTE_SECONDS <= SECONDS; minute += 1) {
    // A minute of reads in slices, so that Ctrl-C is acted on within one.
    const samples: Sample[] = [];
    for (let slice = 0; slice < MINUTE_SECONDS / SLICE_SECONDS; slice += 1) {
      cleanup.checkpoint();
      samples.push(
        ...(await fixedRate(reads, headers, {
          rate: RATE,
          seconds: SLICE_SECONDS,
          first: samples.length + sent,
        })),
      );
    }
    sent += samples.length;
    for (const name of PROCESSES) {
      if (exited(children[name])) {
        throw new Error(
          `the ${name} exited during the run (${children[name].exitCode ?? children[name].signalCode})`,
        );
      }
    }
    const sessions = await sessionsByProcess(sql);
    const reading = (name: ProcessName): ProcessReading => {
      return {
        rssMb: processUsage(children[name].pid).rssBytes / MB,
        heapMb: heapFloor[name] / MB,
        fds: descriptors(children[name].pid),
        sessions: sessions.get(`fleet ${name}`) ?? 0,
      };
    };
    const row: Minute = {
      minute,
      readings: { api: reading("api"), collector: reading("collector"), alerter: reading("alerter") },
      reads: samples.length,
      p99Ms: percentile(
        samples.map((sample) => sample.ms),
        99,
      ),
      errors: samples.filter((sample) => !sample.ok).length,
      streams: streams.open(),
    };
    minutes.push(row);
    for (const name of PROCESSES) {
      heapFloor[name] = 0;
    }
    const cell = (r: ProcessReading) =>
      `${r.rssMb.toFixed(0)} / ${r.heapMb.toFixed(0)}, ${r.fds}, ${r.sessions}`;
    console.log(
      `| ${minute} | ${cell(row.readings.api)} | ${cell(row.readings.collector)} | ${cell(row.readings.alerter)} | ` +
        `${row.reads}, ${row.p99Ms.toFixed(1)}, ${row.errors} | ${row.streams} |`,
    );
    const failure = samples.find((sample) => sample.failure);
    if (failure) {
      console.log(
        `|   first failure: ${failure.endpoint}: ${failure.failure?.replaceAll("\n", " ").replaceAll("|", "/")} | | | | | |`,
      );
    }
  }
  const ran = (Date.now() - started) / 1000;
  console.log(
    `\nran ${ran.toFixed(0)} s; load on the databases: ${load.requests} requests, ${load.failures} failed`,
  );
  verdict(minutes);
}

/**
 * Compares the first and last windows after the warm-up: each measure's median, the change, and
 * whether it stays within the goal; one summary line.
 */
function verdict(minutes: Minute[]): void {
  const steady = minutes.filter((row) => row.minute * MINUTE_SECONDS > WARM_UP_SECONDS);
  const window = Math.min(WINDOW_MINUTES, Math.floor(steady.length / 2));
  if (window === 0) {
    console.log("soak: too short to judge (no minute after the warm-up)");
    return;
  }
  const first = steady.slice(0, window);
  const last = steady.slice(-window);
  // Memory may grow by 10 % or 16 MB, whichever is more; descriptors and sessions by 5.
  const measures: { name: string; of: (r: ProcessReading) => number; slack: (before: number) => number }[] = [
    { name: "RSS MB", of: (r) => r.rssMb, slack: (before) => Math.max(0.1 * before, 16) },
    { name: "heap floor MB", of: (r) => r.heapMb, slack: (before) => Math.max(0.1 * before, 16) },
    { name: "descriptors", of: (r) => r.fds, slack: () => 5 },
    { name: "datastore sessions", of: (r) => r.sessions, slack: () => 5 },
  ];
  console.log(
    `\nAfter the warm-up (${WARM_UP_SECONDS} s): medians of the first ${window} and the last ${window} minutes`,
  );
  console.log("| process | measure | first | last | change | flat |");
  console.log("|---|---|---|---|---|---|");
  const growing: string[] = [];
  const summary: string[] = [];
  for (const name of PROCESSES) {
    const parts: string[] = [];
    for (const measure of measures) {
      const before = median(first.map((row) => measure.of(row.readings[name])));
      const after = median(last.map((row) => measure.of(row.readings[name])));
      const flat = after - before <= measure.slack(before);
      if (!flat) {
        growing.push(`${name} ${measure.name}`);
      }
      console.log(
        `| ${name} | ${measure.name} | ${before.toFixed(0)} | ${after.toFixed(0)} | ${(after - before).toFixed(0)} | ${flat ? "yes" : "no"} |`,
      );
      parts.push(`${before.toFixed(0)}→${after.toFixed(0)}`);
    }
    summary.push(`${name} ${parts.join(" ")}`);
  }
  const p99 = percentile(
    steady.map((row) => row.p99Ms),
    50,
  );
  const errors = steady.reduce((sum, row) => sum + row.errors, 0);
  console.log(
    `soak: ${minutes.length} minutes, RSS MB/heap floor MB/descriptors/sessions first→last ${summary.join("; ")}; ` +
      `reads p99 median ${p99.toFixed(1)} ms, ${errors} errors; ${growing.length === 0 ? "flat" : `growing: ${growing.join(", ")}`}`,
  );
}
