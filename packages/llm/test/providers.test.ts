import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type ChatProviderName,
  type ChatStreamEvent,
  type LlmClient,
  LlmError,
  type LlmMessage,
  LlmProviders,
  loadLlmConfig,
} from "../src/index.js";
import {
  type FakeProvider,
  fakeEmbedding,
  fakeProviderEnv,
  startFakeProvider,
  TEST_KEY,
} from "../src/testing/index.js";

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ models: ["gpt-test", "text-embedding-3-small", "claude-test", "llama3"] });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

function providers(env: Record<string, string> = {}, chat: ChatProviderName = "anthropic"): LlmProviders {
  return new LlmProviders(loadLlmConfig({ ...fakeProviderEnv(fake, chat), ...env }));
}

function chatClient(provider: ChatProviderName): LlmClient {
  const client = providers({}, provider).defaultChat;
  if (!client) {
    throw new Error("no chat client");
  }
  return client;
}

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) {
    events.push(event);
  }
  return events;
}

const tools = [
  {
    name: "query_database",
    description: "Runs SQL",
    inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
];

/** A conversation with a tool round trip, in Anthropic's blocks. */
const withToolRound: LlmMessage[] = [
  { role: "user", content: "How many rows?" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Let me count." },
      { type: "tool_use", id: "toolu_1", name: "query_database", input: { query: "select 1" } },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "1" }] },
];

const chatProviderNames = ["anthropic", "openai", "gemini", "ollama"] as const;

describe.each(chatProviderNames)("chat through %s", (provider) => {
  it("passes tools and tool rounds, and answers in content blocks", async () => {
    fake.script({
      text: "Counting again.",
      toolCalls: [{ name: "query_database", input: { query: "select 2" } }],
    });
    const answer = await chatClient(provider).chat({
      system: "Be brief.",
      messages: withToolRound,
      tools,
      maxTokens: 100,
    });
    expect(answer.content[0]).toEqual({ type: "text", text: "Counting again." });
    expect(answer.content[1]).toMatchObject({
      type: "tool_use",
      name: "query_database",
      input: { query: "select 2" },
    });
    expect(answer.stopReason).toBe("tool_use");
    expect(answer.usage).toMatchObject({ inputTokens: 10, outputTokens: 20 });
    const body = JSON.stringify(fake.requests[0]?.body);
    expect(body).toContain("query_database");
    expect(body).toContain("select 1");
    expect(body).toContain("Be brief.");
  });

  it("streams text deltas, tool calls and the stop reason", async () => {
    fake.script({
      text: "Hello there, friend.",
      toolCalls: [{ id: "toolu_x", name: "query_database", input: { query: "select 3" } }],
      inputTokens: 7,
      outputTokens: 3,
    });
    const events = await collect(
      chatClient(provider).stream({ messages: [{ role: "user", content: "Hi" }], tools, maxTokens: 50 }),
    );
    const text = events.flatMap((event) => (event.type === "delta" ? [event.text] : [])).join("");
    expect(text).toBe("Hello there, friend.");
    expect(events.filter((event) => event.type === "delta").length).toBeGreaterThan(1);
    expect(events.find((event) => event.type === "tool_use")).toMatchObject({
      name: "query_database",
      input: { query: "select 3" },
    });
    expect(events.at(-1)).toEqual({
      type: "done",
      stopReason: "tool_use",
      usage: expect.objectContaining({ inputTokens: 7, outputTokens: 3 }),
    });
  });

  it("reports an error in the middle of a stream", async () => {
    fake.script({ text: "one two three four", failAfterChunks: 2 });
    const events: ChatStreamEvent[] = [];
    const error = await (async () => {
      for await (const event of chatClient(provider).stream({
        messages: [{ role: "user", content: "Hi" }],
        maxTokens: 5,
      })) {
        events.push(event);
      }
    })().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(LlmError);
    expect(events.map((event) => event.type)).toEqual(["delta", "delta"]);
  });

  it("stops the upstream request when the caller aborts mid-stream", async () => {
    fake.script({ text: "a b c d e f g h i j", chunkDelayMs: 100 });
    const controller = new AbortController();
    const stream = chatClient(provider).stream({
      messages: [{ role: "user", content: "Hi" }],
      maxTokens: 5,
      signal: controller.signal,
    });
    const error = await (async () => {
      for await (const event of stream) {
        if (event.type === "delta") {
          controller.abort();
        }
      }
    })().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect((error as LlmError).message).toBe(`${provider} request was aborted`);
    await expect.poll(() => fake.abandonedStreams).toBe(1);
  });

  it("lists the provider's models", async () => {
    const models = await providers({}, provider).listModels(provider);
    expect(models.length).toBeGreaterThan(0);
    if (provider === "openai") {
      expect(models).toEqual(["gpt-test"]);
    }
  });
});

describe("embeddings", () => {
  it.each(["openai", "voyage", "gemini", "ollama"] as const)("through %s", async (provider) => {
    const embedder = providers({ DBMON_LLM_EMBED_PROVIDER: provider }).embedder;
    const result = await embedder?.embed({ input: ["alpha", "beta"], inputType: "query" });
    expect(result?.embeddings).toEqual([fakeEmbedding("alpha"), fakeEmbedding("beta")]);
    expect(result?.totalTokens).toBeGreaterThan(0);
    expect(fake.requests[0]?.api).toBe(provider === "gemini" ? "openai" : provider);
    if (provider === "voyage") {
      expect(fake.requests[0]?.body).toMatchObject({ input_type: "query", model: "voyage-3.5" });
    }
  });

  it("multimodal through Voyage", async () => {
    const embedder = providers({ DBMON_LLM_MULTIMODAL_PROVIDER: "voyage" }).multimodalEmbedder;
    const result = await embedder?.embed({
      inputs: [
        {
          content: [
            { type: "text", text: "a chart" },
            { type: "image_url", image_url: "https://x/y.png" },
          ],
        },
      ],
    });
    expect(result?.embeddings).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ api: "voyage", path: "/v1/multimodalembeddings" });
    expect(fake.requests[0]?.body).toMatchObject({
      model: "voyage-multimodal-3",
      inputs: [
        {
          content: [
            { type: "text", text: "a chart" },
            { type: "image_url", image_url: "https://x/y.png" },
          ],
        },
      ],
    });
  });
});

describe("rerank", () => {
  it.each(["voyage", "cohere"] as const)("through %s", async (provider) => {
    const reranker = providers({ DBMON_LLM_RERANK_PROVIDER: provider }).reranker;
    const result = await reranker?.rerank({
      query: "vacuum bloat",
      documents: ["index usage", "table bloat and vacuum", "bloat"],
      topK: 2,
    });
    expect(result?.results.map((item) => item.index)).toEqual([1, 2]);
    expect(result?.results[0]?.relevanceScore).toBe(1);
    expect(fake.requests[0]).toMatchObject({
      api: provider,
      path: provider === "voyage" ? "/v1/rerank" : "/v2/rerank",
    });
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });
});

describe("the fake provider", () => {
  it("answers every chat request with the standing answer, scripted ones first, until reset", async () => {
    const client = chatClient("openai");
    const ask = async () =>
      (await client.complete({ messages: [{ role: "user", content: "Hi" }], maxTokens: 5 })).text;
    fake.answerAll({ text: "always" });
    fake.script({ text: "scripted" });
    expect([await ask(), await ask(), await ask()]).toEqual(["scripted", "always", "always"]);
    fake.reset();
    await expect(
      providers({ DBMON_LLM_MAX_RETRIES: "0" }, "openai").defaultChat?.complete({
        messages: [{ role: "user", content: "Hi" }],
        maxTokens: 5,
      }),
    ).rejects.toThrow("the fake provider has no scripted answer");
  });
});

describe("provider settings", () => {
  it("sends the custom headers to every provider", async () => {
    const llm = providers({
      DBMON_LLM_CUSTOM_HEADERS: "X-Team=dba",
      DBMON_LLM_VOYAGE_CUSTOM_HEADERS: "X-Voyage=1",
      DBMON_LLM_EMBED_PROVIDER: "voyage",
    });
    fake.script({ text: "ok" });
    await llm.defaultChat?.chat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 5 });
    await llm.embedder?.embed({ input: ["x"] });
    expect(fake.requests[0]?.headers["x-team"]).toBe("dba");
    expect(fake.requests[1]?.headers).toMatchObject({ "x-team": "dba", "x-voyage": "1" });
  });

  it("probes each provider", async () => {
    const llm = providers({ DBMON_LLM_EMBED_PROVIDER: "voyage" });
    for (const provider of llm.configured) {
      await llm.probe(provider.name);
    }
    fake.failNext(503, "down for maintenance");
    await expect(llm.probe("cohere")).rejects.toThrow("cohere answered HTTP 503: down for maintenance");
  });

  it("reports failures of embeddings and rerank without the key", async () => {
    const llm = providers({ DBMON_LLM_EMBED_PROVIDER: "voyage", DBMON_LLM_RERANK_PROVIDER: "cohere" });
    fake.failNext(401, `bad key ${TEST_KEY}`);
    const embedError = await llm.embedder?.embed({ input: ["x"] }).catch((error: unknown) => error);
    fake.failNext(500, "boom");
    const rerankError = await llm.reranker
      ?.rerank({ query: "q", documents: ["d"] })
      .catch((error: unknown) => error);
    expect(String(embedError)).toBe("LlmError: voyage answered HTTP 401: bad key [redacted]");
    expect(String(rerankError)).toBe("LlmError: cohere answered HTTP 500: boom");
  });
});
