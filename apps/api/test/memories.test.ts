import { deleteMemory, listMemories, updateMemoryPinned } from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RequestAccess } from "../src/auth/access.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

describe("memories", () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let keeper: TestUser;
  const ids: Record<string, number> = {};

  const store = async (user: TestUser, args: Record<string, unknown>) => {
    const res = await requestJson(t.app, "/api/v1/mcp/tools/call", {
      method: "POST",
      token: user.token,
      body: { name: "store_memory", arguments: args },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { content: { text: string }[]; isError?: boolean };
  };
  const stored = async (user: TestUser, key: string, args: Record<string, unknown>) => {
    const result = await store(user, args);
    expect(result.isError).toBeUndefined();
    ids[key] = Number(/Stored memory (\d+)/.exec(result.content[0]?.text ?? "")?.[1]);
  };

  /** The system prompt of a chat of Alice's. */
  const aliceSystemPrompt = async () => {
    const access = new RequestAccess(t.services.auth, {
      kind: "token",
      token: alice.token,
      source: "header",
    });
    const request = await t.services.llmProxy.completionRequest(
      { messages: [{ role: "user", content: "hi" }] } as never,
      access,
    );
    return request.system ?? "";
  };

  beforeAll(async () => {
    t = await buildTestApp();
    alice = await createUser(t, "alice");
    bob = await createUser(t, "bob");
    keeper = await createUser(t, "keeper", { permissions: ["store_system_memory"] });
    await stored(alice, "alicePinned", {
      content: "Alice prefers answers in metric units",
      category: "preference",
      pinned: true,
    });
    await stored(alice, "aliceVacuum", {
      content: "autovacuum on orders is tuned: autovacuum_vacuum_scale_factor 0.01 because autovacuum lagged",
      category: "server",
    });
    await stored(alice, "aliceOther", {
      content: "The reporting replica lags during backups",
      category: "server",
    });
    await stored(bob, "bobSecret", {
      content: "Bob's autovacuum notes are private",
      category: "server",
      pinned: true,
    });
    await stored(keeper, "system", {
      content: "Maintenance window is Sunday 02:00 UTC; autovacuum runs are expected then",
      category: "policy",
      scope: "system",
      pinned: true,
    });
  });
  afterAll(() => t.close());

  it("lists the caller's memories and system memories, never another user's", async () => {
    const body = await typedClient(t, alice.token).call(listMemories, { query: {} });
    expect(body.memories.map((m) => m.id).sort()).toEqual(
      [ids.alicePinned, ids.aliceVacuum, ids.aliceOther, ids.system].sort(),
    );
    const system = body.memories.find((m) => m.id === ids.system);
    expect(system).toEqual({
      id: ids.system,
      username: "keeper",
      scope: "system",
      category: "policy",
      content: "Maintenance window is Sunday 02:00 UTC; autovacuum runs are expected then",
      pinned: true,
      // Always present, as the reference lists it: empty when no embedding model was used.
      model_name: "",
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(body.memories.every((m) => m.model_name === "")).toBe(true);
    const bobs = await typedClient(t, bob.token).call(listMemories, { query: { category: "server" } });
    expect(bobs.memories.map((m) => m.id)).toEqual([ids.bobSecret]);
    const limited = await typedClient(t, alice.token).call(listMemories, { query: { limit: 1 } });
    expect(limited.memories).toHaveLength(1);
  });

  it("refuses system scope without store_system_memory", async () => {
    const result = await store(alice, { content: "x", category: "y", scope: "system" });
    expect(result).toEqual({
      content: [
        {
          type: "text",
          text: "Permission denied: storing system memories requires the store_system_memory permission",
        },
      ],
      isError: true,
    });
  });

  it("recalls by full-text search, best match first, pinned memories along", async () => {
    const res = await requestJson(t.app, "/api/v1/mcp/tools/call", {
      method: "POST",
      token: alice.token,
      body: { name: "recall_memories", arguments: { query: "autovacuum" } },
    });
    const { content } = (await res.json()) as { content: { text: string }[] };
    const lines = (content[0]?.text ?? "").split("\n");
    expect(lines[0]).toBe("id\tscope\tcategory\tpinned\tscore\tupdated_at\tcontent");
    const order = lines.slice(1).map((line) => Number(line.split("\t")[0]));
    // Alice's note names autovacuum three times, the system memory once; her pinned preference
    // matches nothing but comes along; Bob's memory never appears.
    expect(order).toEqual([ids.aliceVacuum, ids.system, ids.alicePinned]);
  });

  it("puts pinned memories (own and system) into the chat's system prompt", async () => {
    expect((await t.services.memories.pinnedFor(alice.id)).sort()).toEqual(
      [
        "Alice prefers answers in metric units",
        "Maintenance window is Sunday 02:00 UTC; autovacuum runs are expected then",
      ].sort(),
    );
    const system = await aliceSystemPrompt();
    expect(system).toContain("- Alice prefers answers in metric units");
    expect(system).not.toContain("Bob's autovacuum");
  });

  it("keeps the prompt's pinned memories current: changes through the API at once, others on their notification", async () => {
    expect(await aliceSystemPrompt()).not.toContain("autovacuum on orders is tuned");
    await typedClient(t, alice.token).call(updateMemoryPinned, {
      params: { id: ids.aliceVacuum as number },
      body: { pinned: true },
    });
    expect(await aliceSystemPrompt()).toContain("- autovacuum on orders is tuned");
    // Another process's change (a statement on the datastore) arrives by notification, long before
    // the cache's 10 s bound.
    const rename = (content: string) =>
      t.datastore.sql`update chat_memories set content = ${content} where id = ${ids.alicePinned as number}`;
    await rename("Alice prefers answers in imperial units");
    await vi.waitFor(async () =>
      expect(await aliceSystemPrompt()).toContain("- Alice prefers answers in imperial units"),
    );
    await rename("Alice prefers answers in metric units");
    await typedClient(t, alice.token).call(updateMemoryPinned, {
      params: { id: ids.aliceVacuum as number },
      body: { pinned: false },
    });
    await vi.waitFor(async () =>
      expect(await aliceSystemPrompt()).toContain("- Alice prefers answers in metric units"),
    );
    expect(await aliceSystemPrompt()).not.toContain("autovacuum on orders is tuned");
  });

  it("pins and unpins own and system memories, not another user's", async () => {
    const client = typedClient(t, alice.token);
    expect(
      await client.call(updateMemoryPinned, {
        params: { id: ids.aliceOther as number },
        body: { pinned: true },
      }),
    ).toEqual({ id: ids.aliceOther, pinned: true });
    expect(
      await client.call(updateMemoryPinned, {
        params: { id: ids.system as number },
        body: { pinned: false },
      }),
    ).toEqual({ id: ids.system, pinned: false });
    const other = await requestJson(t.app, `/api/v1/memories/${ids.bobSecret}`, {
      method: "PATCH",
      token: alice.token,
      body: { pinned: false },
    });
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: "Memory not found or not accessible" });
    const missing = await requestJson(t.app, "/api/v1/memories/999999", {
      method: "PATCH",
      token: alice.token,
      body: { pinned: true },
    });
    expect(missing.status).toBe(404);
  });

  it("answers 400 to a malformed id or body", async () => {
    const badId = await requestJson(t.app, "/api/v1/memories/abc", {
      method: "PATCH",
      token: alice.token,
      body: { pinned: true },
    });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toEqual({ error: "Invalid memory ID" });
    const badBody = await requestJson(t.app, `/api/v1/memories/${ids.aliceOther}`, {
      method: "PATCH",
      token: alice.token,
      body: { pinned: "yes" },
    });
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toEqual({ error: "pinned must be true or false" });
    expect((await requestJson(t.app, "/api/v1/memories", { token: "forged" })).status).toBe(401);
  });

  it("deletes own memories; system ones only with store_system_memory; another user's is not found", async () => {
    const system = await requestJson(t.app, `/api/v1/memories/${ids.system}`, {
      method: "DELETE",
      token: alice.token,
    });
    expect(system.status).toBe(403);
    expect(await system.json()).toEqual({
      error: "Permission denied: you do not have permission to delete system memories",
    });
    const other = await requestJson(t.app, `/api/v1/memories/${ids.bobSecret}`, {
      method: "DELETE",
      token: alice.token,
    });
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: "Memory not found" });
    expect(
      await typedClient(t, alice.token).call(deleteMemory, { params: { id: ids.aliceOther as number } }),
    ).toEqual({ status: "deleted" });
    const again = await requestJson(t.app, `/api/v1/memories/${ids.aliceOther}`, {
      method: "DELETE",
      token: alice.token,
    });
    expect(again.status).toBe(404);
    expect(
      await typedClient(t, keeper.token).call(deleteMemory, { params: { id: ids.system as number } }),
    ).toEqual({ status: "deleted" });
    const tool = await requestJson(t.app, "/api/v1/mcp/tools/call", {
      method: "POST",
      token: alice.token,
      body: { name: "delete_memory", arguments: { id: ids.bobSecret } },
    });
    expect(await tool.json()).toEqual({
      content: [{ type: "text", text: "Memory not found" }],
      isError: true,
    });
  });
});
