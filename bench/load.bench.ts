// The API under a dashboard's load: BENCH_LOAD_STREAMS (1,000) open overview streams
// (GET /api/v1/overview/stream) while mixed reads arrive at a fixed rate, BENCH_LOAD_RATE (200) per
// second for BENCH_DURATION_SECONDS, over BENCH_LOAD_CONNECTIONS (100) connections with an hour of
// collected rows. The load is open-model: each request is sent at its scheduled time whether or not
// earlier ones have answered, and its latency counts from that time, so queueing shows. The API runs
// in a child process so that its resident memory and descriptors are its own. Baseline: the same
// schedule against a bare node:http server answering a body of the reads' median size.
// Goal: p99 < 250 ms at 200 requests/s, RSS < 1 GB.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import { openDatastore } from "../packages/datastore/src/index.js";
import { benchConfig } from "./datastore.js";
import { loginAdmin, percentile, startBareJsonServer, timed } from "./harness.js";
import { seedHealthFleet } from "./health-checks.bench.js";
import { processUsage } from "./proc.js";

const STREAMS = Number(process.env.BENCH_LOAD_STREAMS ?? 1000);
const RATE = Number(process.env.BENCH_LOAD_RATE ?? 200);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 100);
/** The product's default DBMON_OVERVIEW_STREAMS_PER_USER: the streams are spread over enough users. */
const STREAMS_PER_USER = 10;
/** A request not answered by then counts as an error. */
const REQUEST_TIMEOUT_MS = 30_000;
const TICK_MS = 1;
const MB = 1024 * 1024;

interface Sample {
  endpoint: string;
  ms: number;
  ok: boolean;
  bytes: number;
  /** How late the generator sent it (its own timer and event loop), included in `ms`. */
  lateMs: number;
  /** The status and start of the body of a failed request (status 0: a transport error or timeout). */
  failure?: string;
}

/** One GET over `agent`: status and body length, or status 0 on a transport error or timeout. */
function get(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; bytes: number; head: string }> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      let bytes = 0;
      let head = "";
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (head.length < 200) {
          head += chunk.toString().slice(0, 200);
        }
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes, head }));
      res.on("error", (error) => resolve({ status: 0, bytes, head: error.message }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (error) => resolve({ status: 0, bytes: 0, head: error.message }));
    req.end();
  });
}

/**
 * Sends `RATE` requests per second for `DURATION_SECONDS`, cycling through `targets`, each at its
 * scheduled time; latency is from the scheduled time to the end of the body.
 */
async function fixedRate(
  targets: { endpoint: string; url: (n: number) => string }[],
  headers: Record<string, string>,
): Promise<Sample[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(RATE * DURATION_SECONDS);
  const samples: Promise<Sample>[] = [];
  const started = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      // Request n is due at n / RATE seconds, the first at once.
      const due = Math.min(total, Math.floor(((performance.now() - started) * RATE) / 1000) + 1);
      for (; sent < due; sent += 1) {
        const scheduled = started + (sent * 1000) / RATE;
        const target = targets[sent % targets.length] as (typeof targets)[number];
        const lateMs = performance.now() - scheduled;
        samples.push(
          get(agent, target.url(sent), headers).then(({ status, bytes, head }) => ({
            endpoint: target.endpoint,
            ms: performance.now() - scheduled,
            ok: status === 200,
            bytes,
            lateMs,
            ...(status === 200 ? {} : { failure: `${status} ${head}` }),
          })),
        );
      }
      if (sent >= total) {
        resolve();
      } else {
        // A short tick: a request sent late by the generator's own timer would count as the server's latency.
        setTimeout(tick, TICK_MS);
      }
    };
    tick();
  });
  const done = await Promise.all(samples);
  agent.destroy();
  return done;
}

interface Streams {
  /** Time from opening to the first `event: overview` of each stream that received one. */
  firstOverviewMs: number[];
  statuses: Map<number, number>;
  /** Streams still open when asked. */
  open(): number;
  closeAll(): void;
}

/** Opens `tokens.length × STREAMS_PER_USER` (at most STREAMS) overview streams, a few at a time. */
async function openStreams(base: string, tokens: string[]): Promise<Streams> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const firstOverviewMs: number[] = [];
  const statuses = new Map<number, number>();
  const requests: ReturnType<typeof request>[] = [];
  let open = 0;
  const openOne = (token: string) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(
        `${base}/api/v1/overview/stream`,
        { agent, headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } },
        (res) => {
          const status = res.statusCode ?? 0;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status !== 200) {
            res.resume();
            resolve();
            return;
          }
          open += 1;
          let seen = "";
          res.on("data", (chunk: Buffer) => {
            if (seen !== "done") {
              seen += chunk.toString();
              if (seen.includes("event: overview")) {
                firstOverviewMs.push(performance.now() - started);
                seen = "done";
              }
            }
          });
          res.on("close", () => {
            open -= 1;
          });
          resolve();
        },
      );
      req.on("error", () => {
        statuses.set(0, (statuses.get(0) ?? 0) + 1);
        resolve();
      });
      req.end();
      requests.push(req);
    });
  const all = Array.from({ length: STREAMS }, (_, i) => tokens[Math.floor(i / STREAMS_PER_USER)] as string);
  for (let i = 0; i < all.length; i += 50) {
    await Promise.all(all.slice(i, i + 50).map(openOne));
  }
  return {
    firstOverviewMs,
    statuses,
    open: () => open,
    closeAll() {
      for (const req of requests) {
        req.destroy();
      }
      agent.destroy();
    },
  };
}

/** The API in a child process, resolved with its URL once it listens; its memory lines go to `onMemory`. */
async function startApiProcess(
  env: NodeJS.ProcessEnv,
  onMemory: (memory: { rss: number; heapUsed: number }) => void,
): Promise<{ child: ChildProcess & { pid: number }; url: string }> {
  const script = fileURLToPath(new URL("./api-process.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("api started ")) {
        resolve(line.slice("api started ".length));
      } else if (line.startsWith("{")) {
        onMemory(JSON.parse(line) as { rss: number; heapUsed: number });
      }
    });
    child.once("exit", (code) => reject(new Error(`api exited with ${code}`)));
  });
  return { child: child as ChildProcess & { pid: number }, url };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Service-account superusers enough for STREAMS streams at the per-user limit, and a token of each. */
async function streamTokens(base: string, admin: string): Promise<string[]> {
  const headers = { authorization: `Bearer ${admin}`, "content-type": "application/json" };
  const tokens: string[] = [];
  for (let user = 1; user <= Math.ceil(STREAMS / STREAMS_PER_USER); user += 1) {
    const username = `dashboard-${user}`;
    const created = await fetch(`${base}/api/v1/rbac/users`, {
      method: "POST",
      headers,
      body: JSON.stringify({ username, is_service_account: true, is_superuser: true }),
    });
    if (!created.ok) {
      throw new Error(`creating ${username}: ${created.status} ${await created.text()}`);
    }
    const token = await fetch(`${base}/api/v1/rbac/tokens`, {
      method: "POST",
      headers,
      body: JSON.stringify({ owner_username: username, annotation: "load bench dashboard" }),
    });
    if (!token.ok) {
      throw new Error(`token of ${username}: ${token.status} ${await token.text()}`);
    }
    tokens.push(((await token.json()) as { token: string }).token);
  }
  return tokens;
}

function latencyTable(title: string, samples: Sample[]): void {
  const endpoints = [...new Set(samples.map((s) => s.endpoint)), "all"];
  const late = samples.map((s) => s.lateMs);
  console.log(
    `\n${title}; sent late by the generator p50 ${percentile(late, 50).toFixed(1)} ms, p99 ${percentile(late, 99).toFixed(1)} ms`,
  );
  console.log("| endpoint | requests | errors | p50 ms | p99 ms | max ms | median bytes |");
  console.log("|---|---|---|---|---|---|---|");
  for (const endpoint of endpoints) {
    const mine = endpoint === "all" ? samples : samples.filter((s) => s.endpoint === endpoint);
    const ms = mine.map((s) => s.ms);
    console.log(
      `| ${endpoint} | ${mine.length} | ${mine.filter((s) => !s.ok).length} | ${percentile(ms, 50).toFixed(1)} | ` +
        `${percentile(ms, 99).toFixed(1)} | ${Math.max(...ms).toFixed(1)} | ${percentile(
          mine.map((s) => s.bytes),
          50,
        )} |`,
    );
    const failure = mine.find((s) => s.failure)?.failure;
    if (failure && endpoint !== "all") {
      console.log(`|   first failure: ${failure.replaceAll("\n", " ").replaceAll("|", "/")} | | | | | | |`);
    }
  }
}

const descriptors = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

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
  let api: { child: ChildProcess & { pid: number }; url: string } | undefined;
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
    const tokens = await streamTokens(url, admin);
    const idle = { rss: processUsage(child.pid).rssBytes, fds: descriptors(child.pid) };

    const openedIn = await timed(async () => {
      streams = await openStreams(url, tokens);
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
    const id = (n: number) => ids[n % ids.length];
    const hour = () => new Date(Date.now() - 3600_000).toISOString();
    const targets = [
      { endpoint: "GET /server-info/{id}", url: (n: number) => `${url}/api/v1/server-info/${id(n)}` },
      {
        endpoint: "GET /metrics/query (1 h, pg_stat_database)",
        url: (n: number) =>
          `${url}/api/v1/metrics/query?connection_id=${id(n)}&probe_name=pg_stat_database&time_range=1h`,
      },
      { endpoint: "GET /alerts", url: () => `${url}/api/v1/alerts` },
      {
        endpoint: "GET /timeline/events (1 h)",
        url: () =>
          `${url}/api/v1/timeline/events?start_time=${encodeURIComponent(hour())}&end_time=${encodeURIComponent(new Date().toISOString())}`,
      },
      {
        endpoint: "GET /connections/{id}/health",
        url: (n: number) => `${url}/api/v1/connections/${id(n)}/health`,
      },
    ];
    const headers = { authorization: `Bearer ${admin}` };
    const cpuBefore = processUsage(child.pid).cpuSeconds;
    const loadBefore = loadavg()[0] ?? 0;
    const readsStarted = performance.now();
    const samples = await fixedRate(targets, headers);
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
