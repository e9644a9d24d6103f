// POST /api/v1/llm/chat/stream against the fake provider, next to the same streamed answer fetched
// from the fake provider directly through the OpenAI SDK: time to the first delta and total time,
// one request at a time, alternating, so both see the same machine.
import { loadavg } from "node:os";
import { fakeProviderEnv, startFakeProvider, TEST_KEY } from "@dbmon/llm/testing";
import OpenAI from "openai";
import { createLogger, loadConfig, startService } from "../apps/api/src/index.js";
import { benchConfig } from "./datastore.js";
import { loginAdmin, percentile } from "./harness.js";

const ROUNDS = Number(process.env.BENCH_LLM_ROUNDS ?? 200);
const WARMUP = 20;
const TOKENS = 200;

interface Timing {
  firstMs: number;
  totalMs: number;
}

export async function run(): Promise<void> {
  const fake = await startFakeProvider();
  const service = await startService(
    loadConfig({
      ...(await benchConfig()),
      ...fakeProviderEnv(fake, "openai"),
      DBMON_COLLECTOR: "false",
      DBMON_ALERTER: "false",
      DBMON_MONITOR_SELF: "false",
      // The service's own chat request, the estate overview, is made once at start (awaited below)
      // and not again while we measure (its default interval is a minute).
      DBMON_OVERVIEW_INTERVAL_SECONDS: "86400",
    }),
    createLogger(process.env.BENCH_LOG_LEVEL ?? "silent"),
  );
  const token = await loginAdmin(service.url);
  const sdk = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.openaiBaseUrl, maxRetries: 0 });
  const text = Array.from({ length: TOKENS }, (_, i) => `tok${i} `).join("");
  const messages = [{ role: "user" as const, content: "Stream me two hundred tokens." }];
  // Every chat request gets the same answer, so a request of the service's own cannot take one
  // meant for a measured request (it did, with a queue of scripted answers: the overview is made
  // every minute by default, and a longer run met it).
  fake.answerAll({ text });
  await overviewGenerated(service.url, token);

  const direct = async (): Promise<Timing> => {
    const started = performance.now();
    let first = 0;
    const stream = await sdk.chat.completions.create({
      model: "openai-test-model",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      if (!first && chunk.choices[0]?.delta.content) {
        first = performance.now();
      }
    }
    return { firstMs: first - started, totalMs: performance.now() - started };
  };

  const proxied = async (): Promise<Timing> => {
    const started = performance.now();
    let first = 0;
    const res = await fetch(`${service.url}/api/v1/llm/chat/stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ messages }),
    });
    const decoder = new TextDecoder();
    let seen = "";
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (!first) {
        seen += decoder.decode(chunk, { stream: true });
        if (seen.includes("event: delta")) {
          first = performance.now();
        }
      }
    }
    if (!first) {
      throw new Error(`the proxy streamed no delta (HTTP ${res.status}: ${seen.slice(0, 200)})`);
    }
    return { firstMs: first - started, totalMs: performance.now() - started };
  };

  try {
    for (const [label, chunkDelayMs] of [
      ["no delay between tokens (pure overhead)", 0],
      ["2 ms between tokens (a fast model, 500 tokens/s)", 2],
    ] as const) {
      const timings = { direct: [] as Timing[], proxied: [] as Timing[] };
      fake.answerAll({ text, chunkDelayMs });
      const loadBefore = loadavg()[0] ?? 0;
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        const a = await direct();
        const b = await proxied();
        if (round >= WARMUP) {
          timings.direct.push(a);
          timings.proxied.push(b);
        }
      }
      report(label, timings.direct, timings.proxied, [loadBefore, loadavg()[0] ?? 0]);
    }
  } finally {
    await service.close();
    await fake.close();
  }
}

/** Waits until the estate overview of the service's start is stored (by answering GET /overview). */
async function overviewGenerated(base: string, token: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const res = await fetch(`${base}/api/v1/overview`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { summary?: string | null };
    if (res.ok && body.summary) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the estate overview was not generated within 30 s");
}

/**
 * The table, and the proxy's cost against the same run's direct requests: medians of the paired
 * differences (each proxied request against the direct one just before it, so that both saw the
 * same moment of a shared machine), split into what it adds to the first delta (the fixed hop) and
 * what it adds after it (per streamed token).
 */
function report(label: string, direct: Timing[], proxied: Timing[], load: [number, number]): void {
  const row = (name: string, timings: Timing[]) => {
    const first = timings.map((t) => t.firstMs);
    const total = timings.map((t) => t.totalMs);
    return `| ${name} | ${percentile(first, 50).toFixed(2)} | ${percentile(first, 90).toFixed(2)} | ${percentile(total, 50).toFixed(2)} | ${percentile(total, 90).toFixed(2)} |`;
  };
  const paired = (measure: (p: Timing, d: Timing) => number) =>
    percentile(
      proxied.map((p, i) => measure(p, direct[i] as Timing)),
      50,
    );
  const firstAdded = paired((p, d) => p.firstMs - d.firstMs);
  const totalRatio = paired((p, d) => p.totalMs / d.totalMs);
  const streamingAdded = paired((p, d) => p.totalMs - p.firstMs - (d.totalMs - d.firstMs));
  console.log(
    `\n## POST /api/v1/llm/chat/stream, ${TOKENS} tokens, ${label} (${direct.length} rounds, load average ${load[0].toFixed(1)} → ${load[1].toFixed(1)})`,
  );
  console.log("| target | first delta p50 ms | p90 ms | total p50 ms | p90 ms |");
  console.log("|---|---|---|---|---|");
  console.log(row("OpenAI SDK → fake provider (direct)", direct));
  console.log(row("dbmon /llm/chat/stream → OpenAI SDK → fake provider", proxied));
  console.log(
    `\nllm stream: the proxy adds ${firstAdded.toFixed(2)} ms to the first delta (goal < 5 ms) and ` +
      `${((totalRatio - 1) * 100).toFixed(1)}% to the total (goal < 10%), total ratio ${totalRatio.toFixed(2)}×; ` +
      `after the first delta ${streamingAdded.toFixed(2)} ms, ${(streamingAdded / TOKENS).toFixed(3)} ms per token ` +
      "(medians of paired rounds)",
  );
}
