import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections?: number;
  durationSeconds?: number;
}

const DEFAULT_DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 10);

/** Drives `url` with autocannon and returns throughput and latency. */
export async function load(name: string, options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    headers: options.headers,
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? DEFAULT_DURATION,
  });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** The baseline every benchmark compares with: a bare node:http server answering a fixed JSON body. */
export async function startBareJsonServer(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Prints results and each one's throughput as a ratio of the first (the baseline). */
export function report(title: string, results: LoadResult[]): void {
  const [baseline] = results;
  console.log(`\n## ${title}`);
  console.log("| target | req/s | p50 ms | p99 ms | errors | non-2xx | throughput vs baseline |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of results) {
    const ratio = baseline ? r.requestsPerSecond / baseline.requestsPerSecond : 1;
    console.log(
      `| ${r.name} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} | ${r.non2xx} | ${(ratio * 100).toFixed(1)}% |`,
    );
  }
}

/** A session token of the benchmark's first superuser (DBMON_ADMIN_PASSWORD of benchConfig). */
export async function loginAdmin(base: string, password = "bench-admin-password-0123"): Promise<string> {
  const res = await fetch(`${base}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  return ((await res.json()) as { session_token: string }).session_token;
}

/** The value below which `p` percent of `values` lie (nearest rank); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

/** Milliseconds `task` took. */
export async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}
