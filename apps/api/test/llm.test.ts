import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { ChatStreamSchema } from "@dbmon/contract";
import { loadLlmConfig } from "@dbmon/llm";
import {
  type FakeProvider,
  fakeEmbedding,
  fakeProviderEnv,
  startFakeProvider,
  TEST_KEY,
} from "@dbmon/llm/testing";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { contractEvents } from "./event-streams.js";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "./support.js";

let fake: FakeProvider;
let t: TestApp;
let bare: TestApp;
let user: TestUser;
let bareUser: TestUser;
let now = new Date("2026-11-23T10:00:00Z");
/** Every body the API answered in this file, to look for keys in. */
const bodies: string[] = [];

beforeAll(async () => {
  fake = await startFakeProvider({ models: ["gpt-test", "whisper-1", "text-embedding-3-small", "o1-mini"] });
  const llm = loadLlmConfig({
    ...fakeProviderEnv(fake, "anthropic"),
    DBMON_LLM_EMBED_PROVIDER: "voyage",
    DBMON_LLM_MULTIMODAL_PROVIDER: "voyage",
    DBMON_LLM_RERANK_PROVIDER: "cohere",
  });
  t = await buildTestApp({
    config: { llm, streamsPerUser: { overview: 10, llmChat: 2 }, anonymousModelRequestsPerMinute: 3 },
    clock: { now: () => now },
  });
  bare = await buildTestApp();
  user = await createUser(t, "alice");
  bareUser = await createUser(bare, "bob");
});

afterAll(async () => {
  await t.close();
  await bare.close();
  await fake.close();
  // Provider keys never reach a response or a log line.
  expect(bodies.join("\n")).not.toContain(TEST_KEY);
  expect(JSON.stringify(t.logs)).not.toContain(TEST_KEY);
  expect(JSON.stringify(bare.logs)).not.toContain(TEST_KEY);
});

beforeEach(() => {
  fake.reset();
});

async function call(
  app: TestApp,
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await requestJson(app.app, path, init);
  const text = await res.text();
  bodies.push(text);
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null, headers: res.headers };
}

const chat = (body: unknown, app = t, token = app === t ? user.token : bareUser.token) =>
  call(app, "/api/v1/llm/chat", { method: "POST", body, token });

const hello = { messages: [{ role: "user", content: "Hello" }] };

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** The stream's events, each checked against the contract's chat stream events. */
function parseSse(text: string): SseEvent[] {
  bodies.push(text);
  return contractEvents(text, ChatStreamSchema) as SseEvent[];
}

const stream = (body: unknown, token = user.token) =>
  requestJson(t.app, "/api/v1/llm/chat/stream", { method: "POST", body, token });

describe("GET /api/v1/llm/providers (public)", () => {
  it("lists the configured chat providers and the default model", async () => {
    const res = await call(t, "/api/v1/llm/providers");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      providers: [
        { name: "anthropic", display: "Anthropic Claude", isDefault: true },
        { name: "openai", display: "OpenAI", isDefault: false },
        { name: "gemini", display: "Google Gemini", isDefault: false },
        { name: "ollama", display: "Ollama", isDefault: false },
      ],
      defaultModel: "anthropic-test-model",
    });
  });

  it("is empty without providers", async () => {
    expect((await call(bare, "/api/v1/llm/providers")).body).toEqual({ providers: [], defaultModel: "" });
  });
});

describe("GET /api/v1/llm/models (public)", () => {
  it("lists a provider's chat models", async () => {
    const res = await call(t, "/api/v1/llm/models?provider=openai");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ models: [{ name: "gpt-test" }, { name: "o1-mini" }] });
    expect((await call(t, "/api/v1/llm/models?provider=ollama")).body).toMatchObject({
      models: expect.arrayContaining([{ name: "gpt-test" }]),
    });
  });

  it("refuses a missing, unknown or unconfigured provider", async () => {
    expect(await call(t, "/api/v1/llm/models")).toMatchObject({
      status: 400,
      body: { error: "Provider parameter is required" },
    });
    expect(await call(t, "/api/v1/llm/models?provider=voyage")).toMatchObject({
      status: 400,
      body: { error: "Unsupported provider" },
    });
    expect(await call(bare, "/api/v1/llm/models?provider=anthropic")).toMatchObject({
      status: 400,
      body: { error: "anthropic provider requires ANTHROPIC_API_KEY" },
    });
  });

  it("is a 500 when the provider fails, and the failure is not kept", async () => {
    fake.failNext(500, `upstream down, key ${TEST_KEY}`);
    expect(await call(t, "/api/v1/llm/models?provider=anthropic", { token: user.token })).toMatchObject({
      status: 500,
      body: { error: "Failed to list models" },
    });
    expect(await call(t, "/api/v1/llm/models?provider=anthropic", { token: user.token })).toMatchObject({
      status: 200,
      body: { models: expect.arrayContaining([{ name: "gpt-test" }]) },
    });
  });

  it("asks the provider at most once a minute for every caller, and limits anonymous callers per address", async () => {
    // A new minute: the counts of the tests above are gone. Gemini's list was never asked for.
    now = new Date(now.getTime() + 3_600_000);
    const path = "/api/v1/llm/models?provider=gemini";
    const listings = () => fake.requests.filter((request) => request.path === "/v1/models").length;
    const anonymous = () => call(t, path);
    const models = { models: [{ name: "gpt-test" }, { name: "whisper-1" }, { name: "o1-mini" }] };
    expect(await anonymous()).toMatchObject({ status: 200, body: models });
    expect(await anonymous()).toMatchObject({ status: 200, body: models });
    // An authenticated caller shares the list.
    expect(await call(t, path, { token: user.token })).toMatchObject({ status: 200, body: models });
    expect(await anonymous()).toMatchObject({ status: 200, body: models });
    expect(listings()).toBe(1);

    // The fourth anonymous request of the minute from that address is refused, as is one with a
    // token that stands for nobody; signed-in callers are not limited.
    const refused = await anonymous();
    expect(refused).toMatchObject({
      status: 429,
      body: { error: "Too many model list requests, please try again later" },
    });
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await call(t, path, { token: "not-a-token" })).status).toBe(429);
    expect((await call(t, path, { token: user.token })).status).toBe(200);
    expect(listings()).toBe(1);

    now = new Date(now.getTime() + 61_000);
    expect((await anonymous()).status).toBe(200);
  });
});

describe("GET /api/v1/llm/health (public)", () => {
  it("probes each configured provider at most every 30 s", async () => {
    const res = await call(t, "/api/v1/llm/health");
    expect(res.status).toBe(200);
    const body = res.body as { status: string; providers: Record<string, unknown>[]; checked_at: string };
    expect(body.status).toBe("ok");
    expect(body.checked_at).toBe(now.toISOString());
    expect(body.providers.map((p) => p.name)).toEqual([
      "anthropic",
      "openai",
      "gemini",
      "ollama",
      "voyage",
      "cohere",
    ]);
    for (const provider of body.providers) {
      expect(provider).toMatchObject({ configured: true, reachable: true, latency_ms: expect.any(Number) });
    }
    const probes = fake.requests.length;
    expect(probes).toBe(6);
    now = new Date(now.getTime() + 29_000);
    expect((await call(t, "/api/v1/llm/health")).body).toEqual(body);
    expect(fake.requests).toHaveLength(probes);

    now = new Date(now.getTime() + 2_000);
    fake.failNext(503, "overloaded");
    const degraded = (await call(t, "/api/v1/llm/health")).body as typeof body;
    expect(degraded.status).toBe("degraded");
    const down = degraded.providers.filter((p) => !p.reachable);
    expect(down).toHaveLength(1);
    expect(down[0]).toMatchObject({
      latency_ms: null,
      error: expect.stringContaining("HTTP 503: overloaded"),
    });
  });

  it("is unconfigured without providers", async () => {
    expect((await call(bare, "/api/v1/llm/health")).body).toMatchObject({
      status: "unconfigured",
      providers: [],
    });
  });
});

describe("POST /api/v1/llm/chat", () => {
  it("sends tools and the system prompt with the caller, and answers in content blocks", async () => {
    fake.script({ text: "Checking.", toolCalls: [{ id: "toolu_9", name: "list_connections", input: {} }] });
    const res = await chat({
      ...hello,
      system: "You are terse.",
      tools: [
        { name: "list_connections", description: "Lists connections", inputSchema: { type: "object" } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_9", name: "list_connections", input: {} },
      ],
      stop_reason: "tool_use",
    });
    const sent = fake.requests[0]?.body as { system: string; tools: unknown[]; messages: unknown[] };
    expect(fake.requests[0]).toMatchObject({ api: "anthropic", path: "/v1/messages" });
    expect(sent.system.startsWith("You are terse.")).toBe(true);
    expect(sent.system).toContain("<current-user>\nUsername: alice");
    expect(sent.system).toContain("Role: Standard user");
    expect(sent.tools).toEqual([
      { name: "list_connections", description: "Lists connections", input_schema: { type: "object" } },
    ]);
    expect(sent.messages).toEqual([{ role: "user", content: "Hello" }]);
  });

  it("uses a built-in system prompt when the request has none", async () => {
    fake.script({ text: "Hi." });
    await chat(hello);
    expect((fake.requests[0]?.body as { system?: string } | undefined)?.system).toMatch(
      /^You are the assistant built into dbmon/,
    );
  });

  it("goes to the provider and model the request names, and reports token usage when debugging", async () => {
    fake.script({ text: "From OpenAI.", inputTokens: 30, outputTokens: 5 });
    const res = await chat({ ...hello, provider: "openai", model: "gpt-4o-mini", debug: true });
    expect(res.body).toEqual({
      content: [{ type: "text", text: "From OpenAI." }],
      stop_reason: "end_turn",
      token_usage: {
        provider: "openai",
        input_tokens: 30,
        output_tokens: 5,
        prompt_tokens: 30,
        completion_tokens: 5,
        total_tokens: 35,
        cache_creation_tokens: 0,
        cache_read_tokens: 0,
        cache_savings_percentage: 0,
      },
    });
    expect(fake.requests[0]).toMatchObject({ api: "openai", body: { model: "gpt-4o-mini" } });
  });

  it("passes tool rounds through in each provider's format", async () => {
    fake.script({ text: "There is one row." });
    const res = await chat({
      provider: "ollama",
      model: "llama3",
      messages: [
        { role: "user", content: "Count" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "count_rows", input: { table: "x" } }],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "1" }] },
      ],
    });
    expect(res.status).toBe(200);
    const sent = fake.requests[0]?.body as { messages: Record<string, unknown>[] };
    expect(sent.messages.slice(1)).toEqual([
      { role: "user", content: "Count" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ function: { name: "count_rows", arguments: { table: "x" } } }],
      },
      { role: "tool", content: "1" },
    ]);
  });

  it("validates the request", async () => {
    expect((await chat({ messages: [] })).status).toBe(400);
    expect((await chat({ messages: [{ role: "robot", content: "x" }] })).status).toBe(400);
    expect(await chat({ ...hello, provider: "mistral" })).toMatchObject({
      status: 400,
      body: { error: "Unsupported provider" },
    });
    expect(await chat({ ...hello, model: "bad model!" })).toMatchObject({
      status: 400,
      body: {
        error:
          "Invalid model name: must be 1-256 characters and contain only alphanumeric characters, hyphens, dots, colons, forward slashes, and underscores",
      },
    });
    expect(fake.requests).toHaveLength(0);
  });

  it("keeps the access cache: a chat changes nobody's access", async () => {
    fake.script({ text: "ok" });
    await chat(hello);
    const cached = t.services.auth.cache.credentials.size;
    expect(cached).toBeGreaterThan(0);
    fake.script({ text: "ok" });
    expect((await chat(hello)).status).toBe(200);
    expect(t.services.auth.cache.credentials.size).toBe(cached);
  });

  it("needs a token", async () => {
    expect(await call(t, "/api/v1/llm/chat", { method: "POST", body: hello })).toMatchObject({
      status: 401,
      body: { error: "Missing or invalid authentication credentials" },
    });
  });

  it("is a 503 without a chat provider", async () => {
    expect(await chat(hello, bare)).toMatchObject({
      status: 503,
      body: { error: "No chat provider is configured" },
    });
    expect(await chat({ ...hello, provider: "openai" }, bare)).toMatchObject({
      status: 400,
      body: { error: "openai provider requires OPENAI_API_KEY or DBMON_LLM_OPENAI_BASE_URL" },
    });
  });

  it("is a 500 `LLM request failed` when the provider fails, logging no key", async () => {
    fake.script({ status: 401, message: `Incorrect API key provided: ${TEST_KEY}` });
    expect(await chat(hello)).toMatchObject({ status: 500, body: { error: "LLM request failed" } });
    const logged = t.logs.find((line) => line.msg === "LLM chat failed");
    expect(logged).toMatchObject({
      provider: "anthropic",
      err: "anthropic answered HTTP 401: Incorrect API key provided: [redacted]",
    });
  });
});

describe("POST /api/v1/llm/chat/stream", () => {
  it("streams deltas, tool calls and done as SSE", async () => {
    fake.script({
      text: "Three small words",
      toolCalls: [{ id: "toolu_s", name: "get_alert_history", input: { limit: 5 } }],
      inputTokens: 12,
      outputTokens: 4,
    });
    const res = await stream({ ...hello, debug: true });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events.filter((e) => e.event === "delta").map((e) => e.data.text)).toEqual([
      "Three ",
      "small ",
      "words",
    ]);
    expect(events.find((e) => e.event === "tool_use")?.data).toEqual({
      id: "toolu_s",
      name: "get_alert_history",
      input: { limit: 5 },
    });
    expect(events.at(-1)).toEqual({
      event: "done",
      data: {
        stop_reason: "tool_use",
        token_usage: expect.objectContaining({ prompt_tokens: 12, completion_tokens: 4 }),
      },
    });
    expect(fake.requests[0]?.body).toMatchObject({ stream: true });
  });

  it.each(["openai", "ollama"])("streams through %s", async (provider) => {
    fake.script({ text: "Fine here" });
    const res = await stream({ ...hello, provider, model: "m1" });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(["delta", "delta", "done"]);
    expect(events.at(-1)?.data).toEqual({ stop_reason: "end_turn" });
  });

  it("is a plain 500 when the provider fails at once, and an error event when it fails later", async () => {
    fake.script({ status: 529, message: "Overloaded" });
    const early = await stream(hello);
    expect(early.status).toBe(500);
    expect(await early.json()).toEqual({ error: "LLM request failed" });

    fake.script({ text: "one two three four", failAfterChunks: 2 });
    const late = await stream(hello);
    expect(late.status).toBe(200);
    const events = parseSse(await late.text());
    expect(events.map((e) => e.event)).toEqual(["delta", "delta", "error"]);
    expect(events.at(-1)?.data).toEqual({ error: "LLM request failed" });
  });

  it("answers validation, 401 and 503 as JSON before any stream", async () => {
    expect((await stream({ messages: [] })).status).toBe(400);
    expect((await stream(hello, "")).status).toBe(401);
    const none = await requestJson(bare.app, "/api/v1/llm/chat/stream", {
      method: "POST",
      body: hello,
      token: bareUser.token,
    });
    expect(none.status).toBe(503);
    expect(await none.json()).toEqual({ error: "No chat provider is configured" });
  });

  it("aborts the provider request when the client goes away", async () => {
    fake.script({ text: "a b c d e f g h i j k l m n o p", chunkDelayMs: 100 });
    const res = await stream(hello);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("event: delta");
    await reader.cancel();
    await expect.poll(() => fake.abandonedStreams, { timeout: 2_000 }).toBe(1);
  });

  it("holds each user to the configured number of open streams; one that ends or is left frees its slot", async () => {
    const slow = { text: "a b c d e f g h", chunkDelayMs: 100 };
    fake.script(slow, slow);
    const first = await stream(hello);
    const second = await stream(hello);
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await stream(hello);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toEqual({
      error: "Too many open chat streams: at most 2 per user; close one and try again",
    });
    // The refused stream never reached the provider.
    expect(fake.requests).toHaveLength(2);

    // One read to its end and one whose client leaves: both slots are given back.
    expect(parseSse(await first.text()).at(-1)?.event).toBe("done");
    await (second.body as ReadableStream<Uint8Array>).cancel();
    await expect.poll(() => t.services.llmProxy.streams.openBy(user.id), { timeout: 2_000 }).toBe(0);
    fake.script({ text: "Again" });
    const again = await stream(hello);
    expect(again.status).toBe(200);
    expect(parseSse(await again.text()).map((e) => e.event)).toEqual(["delta", "done"]);
  });

  it("gives the slot back when the provider fails", async () => {
    fake.script({ status: 529, message: "Overloaded" }, { text: "one two three", failAfterChunks: 1 });
    expect((await stream(hello)).status).toBe(500);
    expect(parseSse(await (await stream(hello)).text()).at(-1)?.event).toBe("error");
    expect(t.services.llmProxy.streams.openBy(user.id)).toBe(0);
  });
});

describe("POST /api/v1/llm/chat/stream past the provider time limit", () => {
  let timed: TestApp;
  let carol: TestUser;
  beforeAll(async () => {
    const llm = loadLlmConfig({ ...fakeProviderEnv(fake, "anthropic"), DBMON_LLM_TIMEOUT_SECONDS: "1" });
    timed = await buildTestApp({ config: { llm } });
    carol = await createUser(timed, "carol");
  });
  afterAll(async () => {
    await timed.close();
  });

  it.each(["anthropic", "openai", "ollama"])(
    "ends a stream through %s: the provider request is aborted, the client gets an error event, then the end",
    async (provider) => {
      // Twenty words, one every 200 ms: the answer would take four seconds.
      const words = Array.from({ length: 20 }, (_, index) => `w${index} `);
      fake.script({ chunks: words, chunkDelayMs: 200 });
      const res = await requestJson(timed.app, "/api/v1/llm/chat/stream", {
        method: "POST",
        body: { ...hello, provider, model: "m1" },
        token: carol.token,
      });
      expect(res.status).toBe(200);
      const events = parseSse(await res.text());
      const deltas = events.filter((e) => e.event === "delta");
      expect(deltas.length).toBeGreaterThan(0);
      expect(deltas.length).toBeLessThan(words.length);
      expect(events.slice(deltas.length)).toEqual([
        { event: "error", data: { error: "LLM request stopped after the 1 s time limit" } },
      ]);
      await expect.poll(() => fake.abandonedStreams, { timeout: 2_000 }).toBe(1);
      expect(timed.services.llmProxy.streams.openBy(carol.id)).toBe(0);
      expect(timed.logs).toContainEqual(
        expect.objectContaining({ msg: "LLM chat stream stopped at its time limit", provider }),
      );
    },
  );
});

describe("POST /api/v1/llm/chat/stream over a real connection", () => {
  it("aborts the provider request when the client disconnects", async () => {
    const server = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 });
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    try {
      fake.script({ text: "a b c d e f g h i j k l m n o p", chunkDelayMs: 100 });
      const controller = new AbortController();
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/llm/chat/stream`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
        body: JSON.stringify(hello),
        signal: controller.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: delta");
      controller.abort();
      await expect.poll(() => fake.abandonedStreams, { timeout: 3_000 }).toBe(1);
      // The user's stream slot is free again.
      expect(t.services.llmProxy.streams.openBy(user.id)).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe("POST /api/v1/llm/embed", () => {
  const embed = (body: unknown, app = t, token = app === t ? user.token : bareUser.token) =>
    call(app, "/api/v1/llm/embed", { method: "POST", body, token });

  it("embeds through the configured provider, or the one named", async () => {
    const res = await embed({ input: ["alpha", "beta"], input_type: "document" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provider: "voyage",
      model: "voyage-3.5",
      embeddings: [fakeEmbedding("alpha"), fakeEmbedding("beta")],
      usage: { total_tokens: expect.any(Number) },
    });
    expect(fake.requests[0]?.body).toMatchObject({ input_type: "document" });

    const named = await embed({ input: "gamma", provider: "openai", model: "text-embedding-3-large" });
    expect(named.body).toMatchObject({
      provider: "openai",
      model: "text-embedding-3-large",
      embeddings: [fakeEmbedding("gamma")],
    });
  });

  it("validates, needs a token, and is a 503 or 500 as the provider is missing or failing", async () => {
    expect((await embed({ input: [] })).status).toBe(400);
    expect((await embed({ input: "x", provider: "anthropic" })).status).toBe(400);
    expect((await call(t, "/api/v1/llm/embed", { method: "POST", body: { input: "x" } })).status).toBe(401);
    expect(await embed({ input: "x" }, bare)).toMatchObject({
      status: 503,
      body: { error: "No embedding provider is configured" },
    });
    fake.failNext(500, "boom");
    expect(await embed({ input: "x" })).toMatchObject({ status: 500, body: { error: "LLM request failed" } });
  });
});

describe("POST /api/v1/llm/embed/multimodal", () => {
  const embed = (body: unknown, app = t, token = app === t ? user.token : bareUser.token) =>
    call(app, "/api/v1/llm/embed/multimodal", { method: "POST", body, token });

  it("embeds text and images through Voyage", async () => {
    const res = await embed({
      inputs: [
        {
          content: [
            { type: "text", text: "a dashboard" },
            { type: "image_url", image_url: "https://example.com/a.png" },
          ],
        },
        { content: [{ type: "image_base64", image_base64: "data:image/png;base64,AAAA" }] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: "voyage", model: "voyage-multimodal-3" });
    expect((res.body as { embeddings: unknown[] }).embeddings).toHaveLength(2);
  });

  it("validates and is a 503 without a provider", async () => {
    expect((await embed({ inputs: [{ content: [{ type: "video", url: "x" }] }] })).status).toBe(400);
    expect(await embed({ inputs: [{ content: [{ type: "text", text: "x" }] }] }, bare)).toMatchObject({
      status: 503,
      body: { error: "No multimodal embedding provider is configured" },
    });
  });
});

describe("POST /api/v1/llm/rerank", () => {
  const rerank = (body: unknown, app = t, token = app === t ? user.token : bareUser.token) =>
    call(app, "/api/v1/llm/rerank", { method: "POST", body, token });

  it("ranks documents through Cohere", async () => {
    const res = await rerank({
      query: "replication lag",
      documents: ["vacuum settings", "replication lag on standby", "lag"],
      top_k: 2,
      return_documents: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provider: "cohere",
      model: "rerank-v3.5",
      results: [
        { index: 1, relevance_score: 1, document: "replication lag on standby" },
        { index: 2, relevance_score: 0.5, document: "lag" },
      ],
      usage: { search_units: 1 },
    });
  });

  it("validates and is a 503 without a provider", async () => {
    expect((await rerank({ query: "", documents: ["x"] })).status).toBe(400);
    expect((await rerank({ query: "q", documents: [] })).status).toBe(400);
    expect(await rerank({ query: "q", documents: ["d"] }, bare)).toMatchObject({
      status: 503,
      body: { error: "No rerank provider is configured" },
    });
  });
});

describe("GET /api/v1/capabilities", () => {
  it("reports ai_enabled once a chat provider is configured", async () => {
    expect((await call(t, "/api/v1/capabilities", { token: user.token })).body).toMatchObject({
      ai_enabled: true,
    });
    expect((await call(bare, "/api/v1/capabilities", { token: bareUser.token })).body).toMatchObject({
      ai_enabled: false,
    });
  });
});
