// POST /api/v1/llm/chat/stream against the fake provider, next to the same streamed answer fetched
// from the fake provider directly through the OpenAI SDK: time to the first delta and total time,
// one request at a time, alternating, so both see the same machine.
import { fakeProviderEnv, startFakeProvider, TEST_KEY } from "@dbmon/llm/testing";
import OpenAI from "openai";
import { createLogger, loadConfig, startService } from "../apps/api/src/index.js";
import { benchConfig } from "./datastore.js";
import { loginAdmin } from "./harness.js";

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
    }),
    createLogger("silent"),
  );
  const token = await loginAdmin(service.url);
  const sdk = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.openaiBaseUrl, maxRetries: 0 });
  const text = Array.from({ length: TOKENS }, (_, i) => `tok${i} `).join("");
  const messages = [{ role: "user" as const, content: "Stream me two hundred tokens." }];

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
      throw new Error(`the proxy streamed no delta (HTTP ${res.status})`);
    }
    return { firstMs: first - started, totalMs: performance.now() - started };
  };

  try {
    for (const [label, chunkDelayMs] of [
      ["no delay between tokens (pure overhead)", 0],
      ["2 ms between tokens (a fast model, 500 tokens/s)", 2],
    ] as const) {
      const timings = { direct: [] as Timing[], proxied: [] as Timing[] };
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        fake.script({ text, chunkDelayMs }, { text, chunkDelayMs });
        const a = await direct();
        const b = await proxied();
        if (round >= WARMUP) {
          timings.direct.push(a);
          timings.proxied.push(b);
        }
      }
      report(label, timings.direct, timings.proxied);
      fake.reset();
    }
  } finally {
    await service.close();
    await fake.close();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function report(label: string, direct: Timing[], proxied: Timing[]): void {
  const row = (name: string, timings: Timing[]) => {
    const first = timings.map((t) => t.firstMs);
    const total = timings.map((t) => t.totalMs);
    return `| ${name} | ${percentile(first, 50).toFixed(2)} | ${percentile(first, 90).toFixed(2)} | ${percentile(total, 50).toFixed(2)} | ${percentile(total, 90).toFixed(2)} |`;
  };
  const firstAdded =
    percentile(
      proxied.map((t) => t.firstMs),
      50,
    ) -
    percentile(
      direct.map((t) => t.firstMs),
      50,
    );
  const directTotal = percentile(
    direct.map((t) => t.totalMs),
    50,
  );
  const proxiedTotal = percentile(
    proxied.map((t) => t.totalMs),
    50,
  );
  console.log(`\n## POST /api/v1/llm/chat/stream, ${TOKENS} tokens, ${label} (${direct.length} rounds)`);
  console.log("| target | first delta p50 ms | p90 ms | total p50 ms | p90 ms |");
  console.log("|---|---|---|---|---|");
  console.log(row("OpenAI SDK → fake provider (direct)", direct));
  console.log(row("dbmon /llm/chat/stream → OpenAI SDK → fake provider", proxied));
  console.log(
    `\nllm stream: the proxy adds ${firstAdded.toFixed(2)} ms to the first delta (goal < 5 ms) and ` +
      `${((proxiedTotal / directTotal - 1) * 100).toFixed(1)}% to the total (goal < 10%): ` +
      `${((proxiedTotal - directTotal) / TOKENS).toFixed(3)} ms per token; total ratio ${(proxiedTotal / directTotal).toFixed(2)}×`,
  );
}
