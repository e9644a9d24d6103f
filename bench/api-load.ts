// A dashboard's load on dbmon's API, shared by `pnpm bench load` and `pnpm bench soak`: overview
// streams held open through service accounts at the per-user limit, and mixed reads sent at a fixed
// rate (open model: each request leaves at its scheduled time whether or not earlier ones have
// answered, and its latency counts from that time, so queueing shows).
import { Agent, request } from "node:http";
import { percentile } from "./harness.js";
import { type MemoryLine, memoryLine } from "./memory-lines.js";
import { type Child, startChild } from "./processes.js";

/** The product's default DBMON_OVERVIEW_STREAMS_PER_USER: the streams are spread over enough users. */
export const STREAMS_PER_USER = 10;
/** A request not answered by then counts as an error. */
const REQUEST_TIMEOUT_MS = 30_000;
const TICK_MS = 1;

export interface Sample {
  endpoint: string;
  ms: number;
  ok: boolean;
  bytes: number;
  /** How late the generator sent it (its own timer and event loop), included in `ms`. */
  lateMs: number;
  /** The status and start of the body of a failed request (status 0: a transport error or timeout). */
  failure?: string;
}

export interface ReadTarget {
  endpoint: string;
  url: (n: number) => string;
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
 * Sends `rate` requests per second for `seconds`, cycling through `targets` (request n goes to
 * target n modulo their number, `first` counting on from an earlier call), each at its scheduled time;
 * latency is from the scheduled time to the end of the body.
 */
export async function fixedRate(
  targets: readonly ReadTarget[],
  headers: Record<string, string>,
  { rate, seconds, first = 0 }: { rate: number; seconds: number; first?: number },
): Promise<Sample[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(rate * seconds);
  const samples: Promise<Sample>[] = [];
  const started = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      // Request n is due at n / rate seconds, the first at once.
      const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
      for (; sent < due; sent += 1) {
        const scheduled = started + (sent * 1000) / rate;
        const n = first + sent;
        const target = targets[n % targets.length] as ReadTarget;
        const lateMs = performance.now() - scheduled;
        samples.push(
          get(agent, target.url(n), headers).then(({ status, bytes, head }) => ({
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

/** The mixed reads of a dashboard over the connections `ids`, against the API at `url`. */
export function dashboardReads(url: string, ids: readonly number[]): ReadTarget[] {
  const id = (n: number) => ids[n % ids.length];
  const hour = () => new Date(Date.now() - 3600_000).toISOString();
  return [
    { endpoint: "GET /server-info/{id}", url: (n) => `${url}/api/v1/server-info/${id(n)}` },
    {
      endpoint: "GET /metrics/query (1 h, pg_stat_database)",
      url: (n) =>
        `${url}/api/v1/metrics/query?connection_id=${id(n)}&probe_name=pg_stat_database&time_range=1h`,
    },
    { endpoint: "GET /alerts", url: () => `${url}/api/v1/alerts` },
    {
      endpoint: "GET /timeline/events (1 h)",
      url: () =>
        `${url}/api/v1/timeline/events?start_time=${encodeURIComponent(hour())}&end_time=${encodeURIComponent(new Date().toISOString())}`,
    },
    { endpoint: "GET /connections/{id}/health", url: (n) => `${url}/api/v1/connections/${id(n)}/health` },
  ];
}

export interface Streams {
  /** Time from opening to the first `event: overview` of each stream that received one. */
  firstOverviewMs: number[];
  statuses: Map<number, number>;
  /** Streams still open when asked. */
  open(): number;
  closeAll(): void;
}

/** Opens `count` overview streams, `STREAMS_PER_USER` on each token, a few at a time. */
export async function openStreams(base: string, tokens: readonly string[], count: number): Promise<Streams> {
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
  const all = Array.from({ length: count }, (_, i) => tokens[Math.floor(i / STREAMS_PER_USER)] as string);
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

/** Service-account superusers enough for `streams` streams at the per-user limit, and a token of each. */
export async function streamTokens(base: string, admin: string, streams: number): Promise<string[]> {
  const headers = { authorization: `Bearer ${admin}`, "content-type": "application/json" };
  const tokens: string[] = [];
  for (let user = 1; user <= Math.ceil(streams / STREAMS_PER_USER); user += 1) {
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
      body: JSON.stringify({ owner_username: username, annotation: "bench dashboard" }),
    });
    if (!token.ok) {
      throw new Error(`token of ${username}: ${token.status} ${await token.text()}`);
    }
    tokens.push(((await token.json()) as { token: string }).token);
  }
  return tokens;
}

/** The API alone in a child process (bench/api-process.ts), with its URL; its memory lines go to `onMemory`. */
export async function startApiProcess(
  env: NodeJS.ProcessEnv,
  onMemory: (memory: MemoryLine) => void,
): Promise<{ child: Child; url: string }> {
  const { child, started } = await startChild("api", env, (line) => {
    const memory = memoryLine(line);
    if (memory) {
      onMemory(memory);
    }
  });
  return { child, url: started };
}

export function latencyTable(title: string, samples: Sample[]): void {
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
