import { loadLlmConfig } from "@dbmon/llm";
import { type FakeProvider, fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertMetrics, prepareMetrics, seedProbeDefaults } from "./monitoring-support.js";
import {
  buildTestApp,
  createUser,
  registerTestServer,
  requestJson,
  type TestApp,
  type TestUser,
} from "./support.js";

interface BridgeTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}
type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/**
 * What the web client does with a chat that uses tools: /llm/chat with the tools of /mcp/tools, the
 * model's tool_use run through /mcp/tools/call, and its result sent back in the next /llm/chat.
 */
const MAX_ITERATIONS = 3;

describe("a chat round trip through the MCP tools", () => {
  let fake: FakeProvider;
  let t: TestApp;
  let root: TestUser;
  let connectionId: number;

  const post = async (path: string, body: unknown) => {
    const res = await requestJson(t.app, path, { method: "POST", token: root.token, body });
    expect(res.status, path).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    fake = await startFakeProvider();
    t = await buildTestApp({
      config: { llm: loadLlmConfig(fakeProviderEnv(fake, "anthropic")), llmMaxIterations: MAX_ITERATIONS },
    });
    root = await createUser(t, "root", { superuser: true });
    connectionId = await registerTestServer(t, root.token);
    await seedProbeDefaults(t);
    const now = new Date();
    await prepareMetrics(t, now);
    await insertMetrics(
      t,
      "pg_connectivity",
      [2, 4].map((minutes) => ({
        connection_id: connectionId,
        collected_at: new Date(now.getTime() - minutes * 60_000),
        response_time_ms: 7 * minutes,
      })),
    );
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it("sends the bridge's tools, runs the model's tool_use, and feeds the result back", async () => {
    const listed = await requestJson(t.app, "/api/v1/mcp/tools", { token: root.token });
    const { tools } = (await listed.json()) as { tools: BridgeTool[] };
    const chatTools = tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    const question = { role: "user", content: "How quickly does the primary answer?" };
    const toolInput = {
      probe_name: "pg_connectivity",
      connection_id: connectionId,
      time_start: "1h",
      buckets: 10,
    };
    fake.script({ toolCalls: [{ id: "toolu_metrics", name: "query_metrics", input: toolInput }] });

    const first = (await post("/api/v1/llm/chat", { messages: [question], tools: chatTools })) as {
      content: Block[];
      stop_reason: string;
    };
    expect(first).toEqual({
      content: [{ type: "tool_use", id: "toolu_metrics", name: "query_metrics", input: toolInput }],
      stop_reason: "tool_use",
    });
    // The provider was offered every tool of the bridge, with the bridge's input schemas.
    const offered =
      (fake.requests[0]?.body as { tools?: { name: string; input_schema: unknown }[] } | undefined)?.tools ??
      [];
    expect(offered.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    expect(offered.find((tool) => tool.name === "query_metrics")?.input_schema).toEqual(
      tools.find((tool) => tool.name === "query_metrics")?.inputSchema,
    );

    const use = first.content[0] as Extract<Block, { type: "tool_use" }>;
    const result = (await post("/api/v1/mcp/tools/call", { name: use.name, arguments: use.input })) as {
      content: { type: "text"; text: string }[];
      isError?: boolean;
    };
    expect(result.isError).toBeUndefined();
    const [header, columns, ...buckets] = (result.content[0]?.text ?? "").split("\n");
    expect(header).toBe(`pg_connectivity on connection ${connectionId}, last 1h, avg per bucket`);
    expect(columns).toBe("time\tresponse_time_ms");
    expect(buckets.length).toBeGreaterThan(0);

    fake.script({ text: "The primary answers in 14 to 28 ms." });
    const toolResult = { type: "tool_result", tool_use_id: use.id, content: result.content };
    const second = await post("/api/v1/llm/chat", {
      messages: [
        question,
        { role: "assistant", content: first.content },
        { role: "user", content: [toolResult] },
      ],
      tools: chatTools,
    });
    expect(second).toEqual({
      content: [{ type: "text", text: "The primary answers in 14 to 28 ms." }],
      stop_reason: "end_turn",
    });
    expect(fake.requests).toHaveLength(2);
    expect((fake.requests[1]?.body as { messages?: unknown[] } | undefined)?.messages).toEqual([
      { role: "user", content: question.content },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_metrics", name: "query_metrics", input: toolInput }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_metrics", content: result.content }],
      },
    ]);
  });
  it("stops a model that asks for tools forever after DBMON_LLM_MAX_ITERATIONS rounds of one question", async () => {
    fake.reset();
    const listed = await requestJson(t.app, "/api/v1/mcp/tools", { token: root.token });
    const { tools } = (await listed.json()) as { tools: BridgeTool[] };
    const chatTools = tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    const toolInput = { probe_name: "pg_connectivity", connection_id: connectionId, time_start: "1h" };
    fake.answerAll({ toolCalls: [{ name: "query_metrics", input: toolInput }] });
    try {
      // The web client's loop, without its own stop: every tool_use is run and sent back.
      const messages: unknown[] = [{ role: "user", content: "Keep looking until you are sure." }];
      let refusal: { status: number; body: unknown } | undefined;
      for (let round = 0; round < MAX_ITERATIONS + 5 && !refusal; round++) {
        const res = await requestJson(t.app, "/api/v1/llm/chat", {
          method: "POST",
          token: root.token,
          body: { messages, tools: chatTools },
        });
        if (res.status !== 200) {
          refusal = { status: res.status, body: await res.json() };
          break;
        }
        const answer = (await res.json()) as { content: Block[]; stop_reason: string };
        expect(answer.stop_reason).toBe("tool_use");
        const use = answer.content.find((block) => block.type === "tool_use") as Extract<
          Block,
          { type: "tool_use" }
        >;
        const result = (await post("/api/v1/mcp/tools/call", { name: use.name, arguments: use.input })) as {
          content: { type: "text"; text: string }[];
        };
        messages.push(
          { role: "assistant", content: answer.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: result.content }] },
        );
      }
      const stopped = {
        status: 400,
        body: {
          error: `Tool-use limit reached: the model has taken ${MAX_ITERATIONS} tool-use rounds for this question, the most allowed`,
        },
      };
      expect(refusal).toEqual(stopped);
      // The provider was asked MAX_ITERATIONS times, never for the round beyond.
      expect(fake.requests.filter((request) => request.path === "/v1/messages")).toHaveLength(MAX_ITERATIONS);

      // The streamed chat stops the same conversation before any stream starts.
      const streamed = await requestJson(t.app, "/api/v1/llm/chat/stream", {
        method: "POST",
        token: root.token,
        body: { messages, tools: chatTools },
      });
      expect({ status: streamed.status, body: await streamed.json() }).toEqual(stopped);
      expect(fake.requests.filter((request) => request.path === "/v1/messages")).toHaveLength(MAX_ITERATIONS);

      // A new question starts a new count.
      messages.push({ role: "user", content: [{ type: "text", text: "And now the replica?" }] });
      const next = (await post("/api/v1/llm/chat", { messages, tools: chatTools })) as {
        stop_reason: string;
      };
      expect(next.stop_reason).toBe("tool_use");
    } finally {
      fake.reset();
    }
  });
});
