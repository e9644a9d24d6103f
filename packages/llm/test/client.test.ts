import { inspect } from "node:util";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LlmError, type LlmProviderName } from "../src/index.js";
import { clientFor, type FakeProvider, startFakeProvider, TEST_KEY } from "../src/testing/index.js";

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ models: ["gpt-test", "gpt-test-mini"] });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe("Anthropic wire format", () => {
  it("sends a Messages API request and returns the text and token usage", async () => {
    fake.script({ text: "Hello from the fake.", inputTokens: 42, outputTokens: 7 });
    const llm = clientFor(fake, "anthropic");
    const completion = await llm.complete({
      system: "Be brief.",
      messages: [{ role: "user", content: "Hi" }],
      maxTokens: 100,
      temperature: 0.2,
    });
    expect(completion).toEqual({ text: "Hello from the fake.", usage: { inputTokens: 42, outputTokens: 7 } });
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request).toMatchObject({ api: "anthropic", method: "POST", path: "/v1/messages" });
    expect(request?.body).toEqual({
      model: "anthropic-test-model",
      max_tokens: 100,
      system: "Be brief.",
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(request?.headers["anthropic-version"]).toBeDefined();
    expect(request?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it("leaves out the system prompt when there is none", async () => {
    fake.script({ text: "ok" });
    await clientFor(fake, "anthropic").complete({
      messages: [{ role: "user", content: "Hi" }],
      maxTokens: 10,
    });
    expect(fake.requests[0]?.body).not.toHaveProperty("system");
  });

  it("reports the provider's error with its status", async () => {
    fake.script({ status: 500, message: "upstream exploded" });
    const error = await failure(
      clientFor(fake, "anthropic").complete({ messages: [{ role: "user", content: "Hi" }], maxTokens: 10 }),
    );
    expect(error.status).toBe(500);
    expect(error.provider).toBe("anthropic");
    expect(error.message).toBe("anthropic answered HTTP 500: upstream exploded");
  });
});

describe("OpenAI-compatible wire format", () => {
  it("sends a Chat Completions request and returns the text and token usage", async () => {
    fake.script({ text: "Hello from the fake.", inputTokens: 12, outputTokens: 5 });
    const llm = clientFor(fake, "openai");
    const completion = await llm.complete({
      system: "Be brief.",
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello." },
        { role: "user", content: "Again" },
      ],
      maxTokens: 100,
      temperature: 0.2,
    });
    expect(completion).toEqual({ text: "Hello from the fake.", usage: { inputTokens: 12, outputTokens: 5 } });
    const [request] = fake.requests;
    expect(request).toMatchObject({ api: "openai", method: "POST", path: "/v1/chat/completions" });
    expect(request?.body).toEqual({
      model: "openai-test-model",
      max_tokens: 100,
      temperature: 0.2,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello." },
        { role: "user", content: "Again" },
      ],
    });
    expect(request?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(request?.headers).not.toHaveProperty("openai-organization");
  });

  it.each(["gemini", "ollama"] as const)("speaks it for %s too", async (provider) => {
    fake.script({ text: "ok" });
    const completion = await clientFor(fake, provider).complete({
      messages: [{ role: "user", content: "Hi" }],
      maxTokens: 10,
    });
    expect(completion.text).toBe("ok");
    expect(fake.requests[0]).toMatchObject({ api: "openai", path: "/v1/chat/completions" });
    expect(fake.requests[0]?.body).toMatchObject({ model: `${provider}-test-model` });
  });

  it("sends Gemini its own key", async () => {
    fake.script({ text: "ok" });
    await clientFor(fake, "gemini").complete({ messages: [{ role: "user", content: "Hi" }], maxTokens: 10 });
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it("sends no Authorization header to a server that needs no key", async () => {
    fake.script({ text: "ok", inputTokens: 1, outputTokens: 1 });
    await clientFor(fake, "ollama").complete({ messages: [{ role: "user", content: "Hi" }], maxTokens: 10 });
    expect(fake.requests[0]?.headers).not.toHaveProperty("authorization");
    fake.script({ text: "ok" });
    await clientFor(fake, "openai", { apiKey: undefined }).complete({
      messages: [{ role: "user", content: "Hi" }],
      maxTokens: 10,
    });
    expect(fake.requests[1]?.headers).not.toHaveProperty("authorization");
  });

  it("uses max_completion_tokens on OpenAI's own API", async () => {
    // Nothing listens on the official address here: the request goes through a custom fetch that
    // hands it to the fake provider.
    const { createLlmClient } = await import("../src/index.js");
    const original = globalThis.fetch;
    globalThis.fetch = (input, init) =>
      original(
        String(input instanceof Request ? input.url : input).replace(
          "https://api.openai.com/v1",
          fake.openaiBaseUrl,
        ),
        init,
      );
    try {
      fake.script({ text: "ok" });
      await createLlmClient({
        provider: "openai",
        model: "gpt-test",
        baseUrl: "https://api.openai.com/v1",
        apiKey: undefined,
        timeoutMs: 2_000,
        maxRetries: 0,
      }).complete({ messages: [{ role: "user", content: "Hi" }], maxTokens: 10 });
    } finally {
      globalThis.fetch = original;
    }
    expect(fake.requests[0]?.body).toMatchObject({ max_completion_tokens: 10 });
    expect(fake.requests[0]?.body).not.toHaveProperty("max_tokens");
  });

  it("reports the provider's error with its status", async () => {
    fake.script({ status: 429, message: "slow down" });
    const error = await failure(
      clientFor(fake, "openai").complete({ messages: [{ role: "user", content: "Hi" }], maxTokens: 10 }),
    );
    expect(error.status).toBe(429);
    expect(error.message).toBe("openai answered HTTP 429: slow down");
  });

  it("lets the real SDK list models from the fake provider", async () => {
    const sdk = new OpenAI({ apiKey: TEST_KEY, baseURL: fake.openaiBaseUrl, maxRetries: 0 });
    const models = [];
    for await (const model of sdk.models.list()) {
      models.push(model.id);
    }
    expect(models).toEqual(["gpt-test", "gpt-test-mini"]);
    expect(fake.requests[0]).toMatchObject({ method: "GET", path: "/v1/models" });
  });
});

describe.each(["anthropic", "openai"] as const satisfies LlmProviderName[])("failures (%s)", (provider) => {
  const hi = { messages: [{ role: "user" as const, content: "Hi" }], maxTokens: 10 };

  it("times out after the configured time", async () => {
    fake.script({ text: "too late", delayMs: 1_000 });
    const error = await failure(clientFor(fake, provider, { timeoutMs: 100 }).complete(hi));
    expect(error.message).toBe(`${provider} request timed out`);
    expect(error.status).toBeUndefined();
  });

  it("stops when the caller aborts", async () => {
    fake.script({ text: "too late", delayMs: 1_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(clientFor(fake, provider).complete({ ...hi, signal: controller.signal }));
    expect(error.message).toBe(`${provider} request was aborted`);
  });

  it("says so when nothing answers, without the address", async () => {
    const closed = await startFakeProvider();
    await closed.close();
    const llm = clientFor(closed, provider);
    const error = await failure(llm.complete(hi));
    expect(error.message).toBe(`${provider} could not be reached`);
    expect(error.message).not.toContain("127.0.0.1");
  });

  it("retries as configured", async () => {
    fake.script({ status: 503, message: "busy" }, { text: "second time lucky" });
    const completion = await clientFor(fake, provider, { maxRetries: 1 }).complete(hi);
    expect(completion.text).toBe("second time lucky");
    expect(fake.requests).toHaveLength(2);
  });

  it("never puts the API key in an error, even when the provider echoes it", async () => {
    const guarded = await startFakeProvider({ apiKey: "a-different-key" });
    try {
      guarded.script({ text: "unreachable" });
      const rejected = await failure(clientFor(guarded, provider).complete(hi));
      expect(rejected.status).toBe(401);

      fake.script({ status: 401, message: `Incorrect API key provided: ${TEST_KEY}.` });
      const echoed = await failure(clientFor(fake, provider).complete(hi));
      expect(echoed.status).toBe(401);
      expect(echoed.message).toContain("Incorrect API key provided: [redacted].");
      for (const error of [rejected, echoed]) {
        expect(error.message).not.toContain(TEST_KEY);
        expect(inspect(error, { depth: 10 })).not.toContain(TEST_KEY);
        expect(JSON.stringify(error)).not.toContain(TEST_KEY);
      }
    } finally {
      await guarded.close();
    }
  });

  it("does not show the key when the client is logged", () => {
    const llm = clientFor(fake, provider);
    expect(inspect(llm, { depth: 10 })).not.toContain(TEST_KEY);
    expect(JSON.stringify(llm)).not.toContain(TEST_KEY);
  });
});

describe("the fake provider", () => {
  it("rejects what the real APIs reject", async () => {
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${fake.anthropicBaseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const anthropic = { "anthropic-version": "2023-06-01" };
    const messages = [{ role: "user", content: "Hi" }];

    const noVersion = await post("/v1/messages", { model: "m", max_tokens: 5, messages });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "anthropic-version: header is required" },
    });
    expect((await post("/v1/messages", { model: "m", messages }, anthropic)).status).toBe(400);
    expect((await post("/v1/chat/completions", { messages })).status).toBe(400);
    const streaming = await post("/v1/chat/completions", { model: "m", messages, stream: true });
    expect(await streaming.json()).toMatchObject({ error: { message: "the fake provider does not stream" } });
    expect((await post("/v1/embeddings", { model: "m", input: "x" })).status).toBe(404);
  });

  it("answers 500 when nothing is scripted", async () => {
    const error = await failure(
      clientFor(fake, "openai").complete({ messages: [{ role: "user", content: "Hi" }], maxTokens: 5 }),
    );
    expect(error.message).toBe("openai answered HTTP 500: the fake provider has no scripted answer");
  });
});
