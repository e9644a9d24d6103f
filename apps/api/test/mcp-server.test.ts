import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { EmptyResultSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerClientErrorsAsJson } from "../src/http/client-errors.js";
import {
  buildTestApp,
  createUser,
  registerTestServer,
  requestJson,
  serveTestApp,
  type TestApp,
  type TestUser,
} from "./support.js";

/** /mcp/v1 through the SDK's own client, over a real socket. */
describe("the MCP server at /mcp/v1", () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveTestApp>>;
  let endpoint: URL;
  let root: TestUser;
  let plain: TestUser;
  let granted: TestUser;
  let connectionId: number;
  const clients: Client[] = [];

  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: "dbmon-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const bridgeToolNames = async (token: string): Promise<string[]> => {
    const res = await requestJson(t.app, "/api/v1/mcp/tools", { token });
    expect(res.status).toBe(200);
    return ((await res.json()) as { tools: { name: string }[] }).tools.map((tool) => tool.name).sort();
  };
  const toolNames = async (client: Client): Promise<string[]> =>
    (await client.listTools()).tools.map((tool) => tool.name).sort();

  beforeAll(async () => {
    t = await buildTestApp();
    served = await serveTestApp(t);
    answerClientErrorsAsJson(served.server);
    endpoint = new URL(`${served.url}/mcp/v1`);

    root = await createUser(t, "root", { superuser: true });
    plain = await createUser(t, "plain");
    granted = await createUser(t, "granted");
    // The test server stands in for a monitored server.
    connectionId = await registerTestServer(t, root.token);
    // "granted" may run queries and read resources, on the primary connection only.
    const group = await t.services.auth.groups.create("mcp-users", "");
    await t.services.auth.groups.addMember(group.id, { userId: granted.id });
    for (const [path, body] of [
      ["mcp", { privileges: ["query_database", "pg://connection_info"] }],
      ["connections", { connections: [{ connection_id: connectionId, access_level: "read" }] }],
    ] as const) {
      const res = await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/${path}`, {
        method: "PUT",
        token: root.token,
        body,
      });
      expect(res.status).toBeLessThan(300);
    }
    const selected = await requestJson(t.app, "/api/v1/connections/current", {
      method: "POST",
      token: granted.token,
      body: { connection_id: connectionId },
    });
    expect(selected.status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await served.close();
    await t.close();
  });

  it("initializes with tools, resources and prompts", async () => {
    const client = await connect(root.token);
    expect(client.getServerVersion()).toMatchObject({ name: "dbmon" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(await client.listPrompts()).toEqual({ prompts: [] });
  });

  it("lists the tools the caller may use, exactly as the REST bridge does", async () => {
    const all = await connect(root.token);
    const listed = await all.listTools();
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(await bridgeToolNames(root.token));
    expect(listed.tools.find((tool) => tool.name === "query_database")).toMatchObject({
      description: expect.any(String),
      inputSchema: { type: "object", required: ["query"], properties: { query: { type: "string" } } },
    });
    expect(await toolNames(await connect(plain.token))).toEqual(
      ["delete_memory", "recall_memories", "store_memory", "test_query"].sort(),
    );
    const grantedNames = await toolNames(await connect(granted.token));
    expect(grantedNames).toContain("query_database");
    expect(grantedNames).not.toContain("list_connections");
    expect(grantedNames).toEqual(await bridgeToolNames(granted.token));
  });

  it("calls a tool for the caller, on the connection it selected", async () => {
    const client = await connect(granted.token);
    expect(
      await client.callTool({ name: "query_database", arguments: { query: "select 42 as answer" } }),
    ).toEqual({
      content: [{ type: "text", text: "answer\n42\n(1 row)" }],
    });
  });

  it("serves query_datastore, search_knowledgebase and similarity_search through the SDK's client", async () => {
    const client = await connect(root.token);
    expect(
      await client.callTool({ name: "query_datastore", arguments: { query: "select current_user as who" } }),
    ).toEqual({ content: [{ type: "text", text: "who\ndbmon_datastore_reader\n(1 row)" }] });
    const found = (await client.callTool({
      name: "search_knowledgebase",
      arguments: { query: "MCP Inspector", top_n: 1 },
    })) as { content: { text: string }[] };
    expect(found.content[0]?.text).toMatch(/^\[1\] .*\nsource: docs\/mcp\.md/);
    // No embedding provider in this app: a tool error, not a transport error.
    expect(
      await client.callTool({
        name: "similarity_search",
        arguments: { table_name: "docs", query_text: "x", connection_id: connectionId },
      }),
    ).toMatchObject({ isError: true });
  });

  it("answers a denied tool, an unknown tool and bad arguments with isError results", async () => {
    const client = await connect(plain.token);
    expect(
      await client.callTool({
        name: "query_database",
        arguments: { query: "select 1", connection_id: connectionId },
      }),
    ).toEqual({
      content: [
        { type: "text", text: "Access denied: you do not have permission to use tool 'query_database'" },
      ],
      isError: true,
    });
    expect(await client.callTool({ name: "nope" })).toEqual({
      content: [{ type: "text", text: "Tool not found: nope" }],
      isError: true,
    });
    const bad = await (await connect(granted.token)).callTool({
      name: "query_database",
      arguments: { query: 1 },
    });
    expect(bad.isError).toBe(true);
    // An id beyond int4 or a year 0 is the caller's mistake too, not an internal error.
    for (const [name, args, refusal] of [
      [
        "query_database",
        { query: "select 1", connection_id: 2 ** 31 },
        /^Invalid arguments for query_database: connection_id: /,
      ],
      ["get_timeline_events", { start_time: "0000-06-01T00:00:00Z" }, /^start_time must lie between/],
    ] as const) {
      const result = (await (await connect(root.token)).callTool({ name, arguments: args })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      expect(result.isError, name).toBe(true);
      expect(result.content[0]?.text).toMatch(refusal);
    }
  });

  it("lists and reads the resources, checking each one's privilege", async () => {
    const client = await connect(granted.token);
    expect((await client.listResources()).resources.map((resource) => resource.uri).sort()).toEqual([
      "pg://connection_info",
      "pg://system_info",
    ]);
    const read = await client.readResource({ uri: "pg://connection_info" });
    expect(read.contents).toEqual([
      { uri: "pg://connection_info", mimeType: "application/json", text: expect.any(String) },
    ]);
    const [content] = read.contents as { text: string }[];
    expect(JSON.parse(content?.text as string)).toMatchObject({ id: connectionId, name: "primary" });
    expect((await client.readResource({ uri: "pg://system_info" })).contents).toEqual([
      {
        uri: "pg://system_info",
        mimeType: "text/plain",
        text: "Access denied: you do not have permission to read resource 'pg://system_info'",
      },
    ]);
    await expect(client.readResource({ uri: "pg://nothing" })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining("Resource not found: pg://nothing"),
    });
  });

  it("answers an unknown method with a JSON-RPC error", async () => {
    const client = await connect(root.token);
    await expect(client.request({ method: "nope/nothing" }, EmptyResultSchema)).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
  });

  it("answers plain JSON-RPC POSTs with JSON", async () => {
    const post = (body: unknown) =>
      fetch(endpoint, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${plain.token}`,
          "Content-Type": "application/json",
          Accept: "application/json",
        },
        body: JSON.stringify(body),
      });
    const listed = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await listed.json()) as { id: number; result: { tools: { name: string }[] } };
    expect(body.id).toBe(1);
    expect(body.result.tools.map((tool) => tool.name)).toContain("test_query");
    const unknown = await post({ jsonrpc: "2.0", id: 2, method: "nope/nothing" });
    expect(await unknown.json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: ErrorCode.MethodNotFound, message: "Method not found" },
    });
    // As the contract's mcpJsonRpc documents: batches, notifications (202, no body), and 400 for
    // a body that is not JSON-RPC 2.0.
    const batch = await post([
      { jsonrpc: "2.0", id: 3, method: "ping" },
      { jsonrpc: "2.0", id: 4, method: "prompts/list" },
    ]);
    expect(await batch.json()).toEqual([
      { jsonrpc: "2.0", id: 3, result: {} },
      { jsonrpc: "2.0", id: 4, result: { prompts: [] } },
    ]);
    const notified = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe("");
    const wrong = await post({ jsonrpc: "1.0", id: 5, method: "ping" });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: expect.stringMatching(/^Invalid request body/) });
    // Malformed params are the caller's mistake (-32602, one line), never an internal error with
    // the validation's dump (-32603), in a batch or alone.
    const malformed = await post([
      { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "list_probes", arguments: "select 1" } },
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { arguments: {} } },
      { jsonrpc: "2.0", id: 8, method: "initialize", params: { name: "nope" } },
      { jsonrpc: "2.0", id: 9, method: "resources/read", params: { uri: 42 } },
      { jsonrpc: "2.0", id: 10, method: "ping" },
    ]);
    const answers = (await malformed.json()) as { id: number; error?: { code: number; message: string } }[];
    expect(answers.map((answer) => [answer.id, answer.error?.code])).toEqual([
      [6, ErrorCode.InvalidParams],
      [7, ErrorCode.InvalidParams],
      [8, ErrorCode.InvalidParams],
      [9, ErrorCode.InvalidParams],
      [10, undefined],
    ]);
    expect(answers[3]?.error?.message).toMatch(/^Invalid params of resources\/read at params\.uri: /);
    expect(answers[2]?.error?.message).toMatch(/^Invalid params of initialize at params\.protocolVersion: /);
  });

  it("takes the Bearer header only: a session cookie is answered 401, whatever the method", async () => {
    const refusal = {
      error: "The MCP endpoint takes Authorization: Bearer <token> only; the session cookie is not accepted",
    };
    for (const method of ["POST", "GET", "DELETE"]) {
      const res = await fetch(endpoint, {
        method,
        headers: {
          cookie: `session_token=${root.token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        ...(method === "POST"
          ? { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }
          : {}),
      });
      expect(res.status, method).toBe(401);
      expect(await res.json()).toEqual(refusal);
    }
    // The REST bridge, which the web client calls with its cookie, still takes it.
    const bridge = await fetch(`${served.url}/api/v1/mcp/tools`, {
      headers: { cookie: `session_token=${root.token}` },
    });
    expect(bridge.status).toBe(200);
  });

  it("answers 401 without a token, and 405 to GET and DELETE (stateless: no stream, no session)", async () => {
    const anonymous = await fetch(endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: expect.any(String) });
    await expect(
      new Client({ name: "anonymous", version: "1.0.0" }).connect(
        new StreamableHTTPClientTransport(endpoint),
      ),
    ).rejects.toThrow();
    expect((await fetch(endpoint)).status).toBe(401);
    for (const method of ["GET", "DELETE"]) {
      const refused = await fetch(endpoint, { method, headers: { Authorization: `Bearer ${root.token}` } });
      expect(refused.status).toBe(405);
      expect(refused.headers.get("allow")).toBe("POST");
    }
  });
});
