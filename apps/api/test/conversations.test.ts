import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "./support.js";

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let root: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  alice = await createUser(t, "alice");
  bob = await createUser(t, "bob");
  root = await createUser(t, "root", { superuser: true });
});
afterAll(() => t.close());

const base = "/api/v1/conversations";
type Conversation = {
  id: string;
  username: string;
  title: string;
  provider?: string;
  model?: string;
  connection?: string;
  messages: Record<string, unknown>[];
  created_at: string;
  updated_at: string;
};

async function create(token: string, body: unknown): Promise<Conversation> {
  const res = await requestJson(t.app, base, { method: "POST", body, token });
  expect(res.status).toBe(201);
  return (await res.json()) as Conversation;
}

describe("conversations", () => {
  it("creates one with the reference's id format and title, storing messages verbatim", async () => {
    const messages = [
      {
        role: "user",
        content: "Why is my replica lagging behind the primary server so much today?",
        timestamp: "t1",
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "query_database", input: { query: "select 1" } },
        ],
        provider: "anthropic",
        model: "claude",
        activity: [{ kind: "tool", name: "query_database" }],
        isError: false,
        uiState: { collapsed: true },
      },
    ];
    const conversation = await create(alice.token, {
      provider: "anthropic",
      model: "claude",
      connection: "prod-db",
      messages,
    });
    expect(conversation.id).toMatch(/^conv_\d{19}_[0-9a-f]{16}$/);
    expect(conversation).toMatchObject({
      username: "alice",
      title: "Why is my replica lagging behind the primary se...",
      provider: "anthropic",
      model: "claude",
      connection: "prod-db",
      messages,
    });
    expect(conversation.title).toHaveLength(50);
    const fetched = await requestJson(t.app, `${base}/${conversation.id}`, { token: alice.token });
    expect(fetched.status).toBe(200);
    expect(await fetched.json()).toEqual(conversation);
  });

  it("titles a conversation without a user text message `New conversation` and leaves out empty fields", async () => {
    const conversation = await create(alice.token, {
      messages: [{ role: "user", content: [{ type: "text", text: "blocks only" }] }],
    });
    expect(conversation.title).toBe("New conversation");
    expect(Object.keys(conversation).sort()).toEqual(
      ["created_at", "id", "messages", "title", "updated_at", "username"].sort(),
    );
  });

  it("refuses a conversation without messages", async () => {
    for (const body of [{}, { messages: [] }, { messages: "x" }]) {
      const res = await requestJson(t.app, base, { method: "POST", body, token: alice.token });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "Messages required" });
    }
    const malformed = await t.app.request(base, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
  });

  it("lists the caller's own, newest update first, with a preview", async () => {
    const user = await createUser(t, "carol");
    const long = "x".repeat(150);
    const first = await create(user.token, { messages: [{ role: "user", content: long }] });
    const second = await create(user.token, {
      connection: "db1",
      messages: [
        { role: "assistant", content: "Hello" },
        { role: "user", content: "short question" },
      ],
    });
    await create(bob.token, { messages: [{ role: "user", content: "bob's" }] });
    const res = await requestJson(t.app, base, { token: user.token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { conversations: Record<string, unknown>[] };
    expect(body.conversations.map((c) => c.id)).toEqual([second.id, first.id]);
    expect(body.conversations[0]).toEqual({
      id: second.id,
      title: "short question",
      connection: "db1",
      created_at: second.created_at,
      updated_at: second.updated_at,
      preview: "short question",
    });
    expect(body.conversations[1]?.preview).toBe(`${"x".repeat(97)}...`);
    const paged = (await (
      await requestJson(t.app, `${base}?limit=1&offset=1`, { token: user.token })
    ).json()) as {
      conversations: { id: string }[];
    };
    expect(paged.conversations.map((c) => c.id)).toEqual([first.id]);
    const lenient = await requestJson(t.app, `${base}?limit=abc&offset=-1`, { token: user.token });
    expect(lenient.status).toBe(200);
  });

  it("replaces provider, model, connection and messages; renames", async () => {
    const conversation = await create(alice.token, {
      provider: "openai",
      model: "gpt",
      messages: [{ role: "user", content: "first" }],
    });
    const messages = [
      { role: "user", content: "first" },
      { role: "assistant", content: "answer" },
    ];
    const put = await requestJson(t.app, `${base}/${conversation.id}`, {
      method: "PUT",
      body: { provider: "anthropic", model: "claude", connection: "db2", messages },
      token: alice.token,
    });
    expect(put.status).toBe(200);
    const updated = (await put.json()) as Conversation;
    expect(updated).toMatchObject({
      provider: "anthropic",
      model: "claude",
      connection: "db2",
      messages,
      title: "first",
    });
    expect(updated.updated_at >= conversation.updated_at).toBe(true);

    const patch = await requestJson(t.app, `${base}/${conversation.id}`, {
      method: "PATCH",
      body: { title: "Renamed" },
      token: alice.token,
    });
    expect(patch.status).toBe(200);
    expect(await patch.json()).toEqual({ success: true });
    const fetched = (await (
      await requestJson(t.app, `${base}/${conversation.id}`, { token: alice.token })
    ).json()) as Conversation;
    expect(fetched.title).toBe("Renamed");

    for (const body of [{}, { title: "  " }]) {
      const bad = await requestJson(t.app, `${base}/${conversation.id}`, {
        method: "PATCH",
        body,
        token: alice.token,
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: "Title required" });
    }
  });

  it("is not found for another user, superusers included, whatever the verb", async () => {
    const conversation = await create(alice.token, { messages: [{ role: "user", content: "private" }] });
    const path = `${base}/${conversation.id}`;
    for (const token of [bob.token, root.token]) {
      for (const [method, body] of [
        ["GET", undefined],
        ["PUT", { messages: [] }],
        ["PATCH", { title: "mine now" }],
        ["DELETE", undefined],
      ] as const) {
        const res = await requestJson(t.app, path, { method, body, token });
        expect(res.status, `${method} by another user`).toBe(404);
        expect(await res.json()).toEqual({ error: "Conversation not found" });
      }
    }
    const list = (await (await requestJson(t.app, base, { token: root.token })).json()) as {
      conversations: { id: string }[];
    };
    expect(list.conversations.map((c) => c.id)).not.toContain(conversation.id);
    // Still there for its owner.
    expect((await requestJson(t.app, path, { token: alice.token })).status).toBe(200);
  });

  it("is 404 for unknown ids and 401 without credentials", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const res = await requestJson(t.app, `${base}/conv_1_0000000000000000`, {
        method,
        body: method === "PUT" || method === "PATCH" ? { title: "x" } : undefined,
        token: alice.token,
      });
      expect(res.status).toBe(404);
    }
    for (const [method, path] of [
      ["GET", base],
      ["POST", base],
      ["DELETE", `${base}?all=true`],
      ["GET", `${base}/conv_1_0000000000000000`],
    ] as const) {
      const res = await requestJson(t.app, path, {
        method,
        body: method === "POST" ? { messages: [] } : undefined,
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: "Missing or invalid authentication credentials" });
    }
  });

  it("deletes one, then all with ?all=true only", async () => {
    const user = await createUser(t, "dave");
    const one = await create(user.token, { messages: [{ role: "user", content: "a" }] });
    await create(user.token, { messages: [{ role: "user", content: "b" }] });
    await create(user.token, { messages: [{ role: "user", content: "c" }] });
    const kept = await create(bob.token, { messages: [{ role: "user", content: "bob keeps this" }] });

    const deleted = await requestJson(t.app, `${base}/${one.id}`, { method: "DELETE", token: user.token });
    expect(await deleted.json()).toEqual({ success: true });
    expect((await requestJson(t.app, `${base}/${one.id}`, { token: user.token })).status).toBe(404);

    const refused = await requestJson(t.app, base, { method: "DELETE", token: user.token });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: "Use ?all=true to delete all conversations" });
    const all = await requestJson(t.app, `${base}?all=true`, { method: "DELETE", token: user.token });
    expect(await all.json()).toEqual({ success: true, deleted: 2 });
    expect((await requestJson(t.app, `${base}/${kept.id}`, { token: bob.token })).status).toBe(200);
  });

  it("works with service tokens (D4)", async () => {
    const user = await t.services.auth.users.byId(alice.id);
    if (!user) {
      throw new Error("alice is missing");
    }
    const { token } = await t.services.auth.credentials.issueServiceToken(user, "chat bot", null);
    const conversation = await create(token, { messages: [{ role: "user", content: "from a token" }] });
    expect(conversation.username).toBe("alice");
    expect((await requestJson(t.app, `${base}/${conversation.id}`, { token: alice.token })).status).toBe(200);
  });

  it("stores a message list up to the body limit", async () => {
    const messages = Array.from({ length: 200 }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: `${i} ${"y".repeat(4_000)}`,
    }));
    const conversation = await create(alice.token, { messages });
    const fetched = (await (
      await requestJson(t.app, `${base}/${conversation.id}`, { token: alice.token })
    ).json()) as Conversation;
    expect(fetched.messages).toHaveLength(200);
  });
});
