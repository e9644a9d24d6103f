// The API under a dashboard's load: BENCH_LOAD_STREAMS (1,000) open overview streams
// (GET /api/v1/overview/stream) while mixed reads arrive at a fixed rate, BENCH_LOAD_RATE (200) per
// second for BENCH_DURATION_SECONDS, over BENCH_LOAD_CONNECTIONS (100) connections with an hour of
// collected rows. The load is open-model: each request is sent at its scheduled time whether or not
// earlier ones have answered, and its latency counts from that time, so queueing shows. The API runs
// in a child process so that its resident memory and descriptors are its own. Baseline: the same
// schedule against a bare node:http server answering a body of the reads' median size.
// Goal: p99 < 250 ms at 200 requests/s, RSS < 1 GB.
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import { openDatastore } from "../packages/datastore/src/index.js";
import {
  dashboardReads,
  fixedRate,
  latencyTable,
  openStreams,
  type Sample,
  STREAMS_PER_USER,
  type Streams,
  startApiProcess,
  streamTokens,
} from "./api-load.js";
import { benchConfig } from "./datastore.js";
import { loginAdmin, percentile, startBareJsonServer, timed } from "./harness.js";
import { seedHealthFleet } from "./health-checks.bench.js";
import { processUsage } from "./proc.js";
import { type Child, descriptors, stopChild } from "./processes.js";

const STREAMS = Number(process.env.BENCH_LOAD_STREAMS ?? 1000);
const RATE = Number(process.env.BENCH_LOAD_RATE ?? 200);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 100);
const MB = 1024 * 1024;

export async function run(): Promise<void> {
  const env = await benchConfig();
  const fake = await startFakeProvider();
  // Every chat request (the estate overview) gets the same short answer.
  fake.answerAll({ text: "The estate is healthy: no alerts, every server reachable." });
  // The bench owns the datastore (embedded unless DBMON_DATABASE_URL says otherwise) and seeds it;
  // the API process uses it as an external one.
  const datastore = await openDatastore({
    databaseUrl: env.DBMON_DATABASE_URL,
    dataDir: env.DBMON_DATA_DIR as string,
  });
  const secretDir = await mkdtemp(join(tmpdir(), "dbmon-bench-load-"));
  let api: { child: Child; url: string } | undefined;
  let streams: Streams | undefined;
  const memory = {
    peakRss: 0,
    peakHeap: 0,
    last: { rss: 0, heapUsed: 0 },
    /** Every `api-process` report, to tell growth from garbage not yet collected. */
    trace: [] as { at: number; rss: number; heapUsed: number }[],
  };
  try {
    const seeding = await timed(() => seedHealthFleet(datastore.sql, new Date(), CONNECTIONS));
    console.log(
      `\n## Load: ${STREAMS} overview streams + ${RATE} reads/s for ${DURATION_SECONDS} s over ${CONNECTIONS} connections`,
    );
    console.log(
      `${CONNECTIONS} connections with an hour of collected rows seeded in ${(seeding / 1000).toFixed(1)} s`,
    );
    api = await startApiProcess(
      {
        ...fakeProviderEnv(fake, "openai"),
        DBMON_DATABASE_URL: datastore.url,
        DBMON_DATA_DIR: secretDir,
        DBMON_PORT: "0",
        DBMON_ADMIN_PASSWORD: env.DBMON_ADMIN_PASSWORD,
        DBMON_LOG_LEVEL: "silent",
        DBMON_MONITOR_SELF: "false",
        DBMON_COLLECTOR: "false",
        DBMON_ALERTER: "false",
      },
      (line) => {
        memory.last = line;
        memory.trace.push({ at: performance.now(), rss: line.rss, heapUsed: line.heapUsed });
        memory.peakRss = Math.max(memory.peakRss, line.rss);
        memory.peakHeap = Math.max(memory.peakHeap, line.heapUsed);
      },
    );
    const { url, child } = api;
    const admin = await loginAdmin(url);
    const tokens = await streamTokens(url, admin, STREAMS);
    const idle = { rss: processUsage(child.pid).rssBytes, fds: descriptors(child.pid) };

    const openedIn = await timed(async () => {
      streams = await openStreams(url, tokens, STREAMS);
    });
    const opened = streams as unknown as Streams;
    // The first overview a stream receives is the stored estate overview, or the one generated for it.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const withStreams = { rss: processUsage(child.pid).rssBytes, fds: descriptors(child.pid) };
    console.log(
      `streams: ${opened.open()} open of ${STREAMS} (${tokens.length} service accounts × ${STREAMS_PER_USER}, the ` +
        `per-user limit) in ${(openedIn / 1000).toFixed(1)} s; HTTP statuses ${JSON.stringify(Object.fromEntries(opened.statuses))}; ` +
        `first overview event received by ${opened.firstOverviewMs.length}, p50 ${percentile(opened.firstOverviewMs, 50).toFixed(0)} ms, ` +
        `p99 ${percentile(opened.firstOverviewMs, 99).toFixed(0)} ms after opening`,
    );

    const ids = (
      await datastore.sql<{ id: number }[]>`select id from connections where name like 'bench-%' order by id`
    ).map((row) => row.id);
    const targets = dashboardReads(url, ids);
    const headers = { authorization: `Bearer ${admin}` };
    const cpuBefore = processUsage(child.pid).cpuSeconds;
    const loadBefore = loadavg()[0] ?? 0;
    const readsStarted = performance.now();
    const samples = await fixedRate(targets, headers, { rate: RATE, seconds: DURATION_SECONDS });
    const readsEnded = performance.now();
    const apiCpu = processUsage(child.pid).cpuSeconds - cpuBefore;
    const after = { ...processUsage(child.pid), fds: descriptors(child.pid), streams: opened.open() };
    latencyTable(
      `### dbmon, ${samples.length} reads at ${RATE}/s with ${after.streams} streams open (load average ${loadBefore.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)})`,
      samples,
    );

    const body = JSON.stringify({
      padding: "x".repeat(
        Math.max(
          0,
          percentile(
            samples.map((s) => s.bytes),
            50,
          ) - 14,
        ),
      ),
    });
    const bare = await startBareJsonServer(body);
    let baseline: Sample[];
    try {
      baseline = await fixedRate(
        [{ endpoint: `bare node:http (${body.length} bytes)`, url: () => bare.url }],
        {},
        { rate: RATE, seconds: DURATION_SECONDS },
      );
    } finally {
      await bare.close();
    }
    latencyTable(`### baseline, ${baseline.length} requests at ${RATE}/s`, baseline);

    const p99 = percentile(
      samples.map((s) => s.ms),
      99,
    );
    const baselineP99 = percentile(
      baseline.map((s) => s.ms),
      99,
    );
    const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
    console.log(
      `\nAPI process: RSS ${mb(idle.rss)} idle → ${mb(withStreams.rss)} with streams → ${mb(after.rssBytes)} after the reads ` +
        `(peak ${mb(Math.max(after.peakRssBytes, memory.peakRss))}); V8 heap used ${mb(memory.last.heapUsed)} at the end, ` +
        `peak ${mb(memory.peakHeap)}; open descriptors ${idle.fds} idle → ${withStreams.fds} with streams → ${after.fds}; ` +
        `CPU ${(apiCpu / DURATION_SECONDS).toFixed(2)} cores during the reads`,
    );
    const during = memory.trace.filter((point) => point.at >= readsStarted && point.at <= readsEnded);
    const every = Math.max(1, Math.round(during.length / 6));
    console.log(
      `API memory during the reads (RSS / heap used, every ${every} s of ${during.length}): ${during
        .filter((_, i) => i % every === 0 || i === during.length - 1)
        .map((point) => `${mb(point.rss)} / ${mb(point.heapUsed)}`)
        .join(", ")}`,
    );
    console.log(
      `load: p99 ${p99.toFixed(1)} ms at ${RATE} req/s (goal < 250 ms), ${(p99 / baselineP99).toFixed(1)}× the bare ` +
        `server's p99 (${baselineP99.toFixed(1)} ms); errors ${samples.filter((s) => !s.ok).length}; peak RSS ` +
        `${mb(Math.max(after.peakRssBytes, memory.peakRss))} (goal < 1 GB)`,
    );
  } finally {
    streams?.closeAll();
    if (api) {
      await stopChild(api.child);
    }
    await fake.close();
    await datastore.close();
    await rm(env.DBMON_DATA_DIR as string, { recursive: true, force: true });
    await rm(secretDir, { recursive: true, force: true });
  }
}
