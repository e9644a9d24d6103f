import { loadLlmConfig } from "@dbmon/llm";
import { type FakeProvider, fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp } from "./support.js";

let fake: FakeProvider;
let t: TestApp;
let token: string;

beforeAll(async () => {
  fake = await startFakeProvider();
  t = await buildTestApp({ config: { llm: loadLlmConfig(fakeProviderEnv(fake, "openai")) } });
  token = (await createUser(t, "alice")).token;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => fake.reset());

const compact = (body: unknown, auth: string | undefined = token) =>
  requestJson(t.app, "/api/v1/chat/compact", { method: "POST", body, ...(auth ? { token: auth } : {}) });

type Message = { role: string; content: unknown; [key: string]: unknown };
interface Compacted {
  messages: Message[];
  summary?: { topics: string[]; tables: string[]; tools: string[]; description: string };
  token_estimate: number;
  compaction_info: Record<string, number>;
}

/** A long conversation: chatter, one tool round in the middle, and a question at the end. */
function conversation(): Message[] {
  const messages: Message[] = [{ role: "user", content: "I run the orders database; help me tune it." }];
  for (let i = 0; i < 30; i++) {
    messages.push({
      role: i % 2 === 0 ? "assistant" : "user",
      content: `chatter ${i} ${"lorem ipsum ".repeat(40)}`,
    });
  }
  messages.push(
    {
      role: "assistant",
      content: [
        {
          type: "tool_use",
          id: "t1",
          name: "query_database",
          input: { query: "select count(*) from orders" },
        },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "42" }] },
  );
  for (let i = 0; i < 12; i++) {
    messages.push({ role: i % 2 === 0 ? "assistant" : "user", content: `recent ${i}` });
  }
  return messages;
}

describe("POST /api/v1/chat/compact", () => {
  it("returns short histories unchanged", async () => {
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ];
    const res = await compact({ messages });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Compacted;
    expect(body.messages).toEqual(messages);
    expect(body.compaction_info).toEqual({
      original_count: 2,
      compacted_count: 2,
      dropped_count: 0,
      anchor_count: 0,
      tokens_saved: 0,
      compression_ratio: 1,
    });
    expect(body.token_estimate).toBe(Math.ceil(2 / 4) + 10 + Math.ceil(5 / 4) + 10);
  });

  it("keeps the anchor, tool pairs and the recent window, with a summary, calling no LLM", async () => {
    const messages = conversation();
    const res = await compact({ messages, max_tokens: 600, recent_window: 10 });
    const body = (await res.json()) as Compacted;
    expect(res.status).toBe(200);
    expect(body.messages[0]).toEqual(messages[0]);
    expect(body.messages[1]).toMatchObject({
      role: "assistant",
      content: expect.stringMatching(/^\[Summary of earlier conversation: /),
    });
    expect(body.messages.slice(-10)).toEqual(messages.slice(-10));
    const toolUse = body.messages.findIndex((m) => JSON.stringify(m.content).includes('"tool_use"'));
    expect(toolUse).toBeGreaterThan(0);
    expect(JSON.stringify(body.messages[toolUse + 1]?.content)).toContain('"tool_result"');
    expect(body.compaction_info).toMatchObject({ original_count: messages.length, anchor_count: 1 });
    expect(body.compaction_info.dropped_count).toBeGreaterThan(20);
    expect(body.compaction_info.compression_ratio).toBeLessThan(0.5);
    expect(body.token_estimate).toBeLessThanOrEqual(600);
    expect(body.summary?.tools).toEqual([]);
    expect(body.summary?.description).toMatch(/earlier messages/);
    expect(fake.requests).toHaveLength(0);
  });

  it("asks the LLM for the summary only when told to", async () => {
    fake.script({ text: "The user tuned the orders database." });
    const res = await compact({
      messages: conversation(),
      max_tokens: 600,
      options: { enable_llm_summarization: true },
    });
    const body = (await res.json()) as Compacted;
    expect(body.summary?.description).toBe("The user tuned the orders database.");
    expect(fake.requests).toHaveLength(1);
  });

  it("validates and needs a token", async () => {
    const empty = await compact({ messages: [] });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "Messages array cannot be empty" });
    expect((await compact({})).status).toBe(400);
    expect((await compact({ messages: [{ role: "user", content: "x" }] }, "")).status).toBe(401);
  });
});
