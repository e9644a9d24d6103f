import type { AddressInfo } from "node:net";
import { createDbmon, type Dbmon, ForbiddenError, NotFoundError, UnauthorizedError } from "@dbmon/client";
import { contractValidator } from "@dbmon/client/validate";
import { loadLlmConfig } from "@dbmon/llm";
import { type FakeProvider, fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, TEST_PASSWORD, type TestApp } from "./support.js";

/** @dbmon/client over real HTTP against a running dbmon on a real datastore. */
describe("SDK against a running dbmon", () => {
  let t: TestApp;
  let fake: FakeProvider;
  let server: ServerType;
  let baseUrl: string;
  let dbmon: Dbmon;
  beforeAll(async () => {
    fake = await startFakeProvider();
    t = await buildTestApp({ config: { llm: loadLlmConfig(fakeProviderEnv(fake, "anthropic")) } });
    await createUser(t, "root", { superuser: true });
    await createUser(t, "plain");
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dbmon = createDbmon({ baseUrl });
    await dbmon.auth.login({ username: "root", password: TEST_PASSWORD });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
    await fake.close();
  });

  it("calls one operation per resource", async () => {
    expect(await dbmon.utilities.getHealth()).toMatchObject({ status: "ok" });
    expect((await dbmon.auth.getUserInfo()).username).toBe("root");
    const connection = await dbmon.connections.create({
      name: "sdk",
      host: "127.0.0.1",
      port: 5432,
      database_name: "postgres",
      username: "postgres",
      password: "unused",
    });
    expect((await dbmon.connections.get({ connection_id: connection.id })).name).toBe("sdk");
    expect(await dbmon.serverInfo.get({ connection_id: connection.id })).toHaveProperty("databases");
    expect(await dbmon.alerts.list({ status: "active", limit: 5 })).toHaveProperty("alerts");
    expect(await dbmon.blackouts.list()).toHaveProperty("blackouts");
    expect(await dbmon.rbac.users.list()).toBeDefined();
    expect(await dbmon.probes.configs.list()).toBeDefined();
    expect(await dbmon.clusters.groups.list()).toBeDefined();
    expect(await dbmon.notifications.channels.list()).toBeDefined();
    expect(await dbmon.llm.listProviders()).toBeDefined();
  });

  it("finds dbmon's real answers valid in validation mode", async () => {
    const { session_token: token } = await createDbmon({ baseUrl }).auth.login({
      username: "root",
      password: TEST_PASSWORD,
    });
    const checked = createDbmon({ baseUrl, token, validate: contractValidator() });
    expect(await checked.utilities.getHealth()).toMatchObject({ status: "ok" });
    expect((await checked.auth.getUserInfo()).username).toBe("root");
    const [connection] = await checked.connections.list();
    expect(connection?.name).toBe("sdk");
    expect(await checked.serverInfo.get({ connection_id: connection?.id ?? 0 })).toHaveProperty("databases");
    expect(await checked.alerts.list({ limit: 5 })).toHaveProperty("alerts");
    expect(await checked.rbac.users.list()).toBeDefined();
    expect(await checked.llm.listProviders()).toBeDefined();
    await expect(checked.connections.get({ connection_id: 999_999 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("throws typed errors with the request id", async () => {
    const error = await dbmon.connections.get({ connection_id: 999_999 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).requestId).toMatch(/.+/);
    const plain = createDbmon({ baseUrl, token: (await createUser(t, "plain2")).token });
    await expect(plain.rbac.users.list()).rejects.toBeInstanceOf(ForbiddenError);
    await expect(createDbmon({ baseUrl }).auth.getCapabilities()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("works with a token provider, and login/logout return and end the session", async () => {
    const { session_token: session } = await createDbmon({ baseUrl }).auth.login({
      username: "plain",
      password: TEST_PASSWORD,
    });
    const calls: number[] = [];
    const viaProvider = createDbmon({
      baseUrl,
      token: async () => {
        calls.push(1);
        return session;
      },
    });
    expect((await viaProvider.auth.getUserInfo()).username).toBe("plain");
    expect(calls).toHaveLength(1);
    await viaProvider.auth.logout();
    await expect(viaProvider.auth.getCapabilities()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("works in cookie mode, sending no token", async () => {
    // A browser's cookie jar, as far as this test needs one.
    let cookie = "";
    const sent: (string | null)[] = [];
    const browser = createDbmon({
      baseUrl,
      credentials: "include",
      fetch: async (request) => {
        sent.push(request.headers.get("authorization"));
        if (cookie) {
          request.headers.set("cookie", cookie);
        }
        const response = await fetch(request);
        const set = response.headers.get("set-cookie");
        if (set) {
          cookie = set.split(";")[0] ?? "";
        }
        return response;
      },
    });
    // A browser app keeps no token: cookie mode is the cookie login() sets.
    await browser.auth.login({ username: "plain", password: TEST_PASSWORD });
    expect((await browser.auth.getUserInfo()).username).toBe("plain");
    expect(sent.every((header) => header === null)).toBe(true);
  });

  it("aborts a call", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    await expect(dbmon.utilities.getHealth({ signal: controller.signal })).rejects.toThrow("gone");
  });

  it("iterates a paged list", async () => {
    for (const title of ["a", "b", "c"]) {
      await dbmon.conversations.create({ messages: [{ role: "user", content: title }] });
    }
    const ids: string[] = [];
    for await (const conversation of dbmon.conversations.iterate({ limit: 2 })) {
      ids.push(conversation.id);
    }
    expect(new Set(ids).size).toBe(3);
  });

  it("streams a chat as typed events", async () => {
    fake.script({ text: "Three small words", inputTokens: 3, outputTokens: 3 });
    const stream = await dbmon.llm.chatStream({ messages: [{ role: "user", content: "hello" }] });
    const names: string[] = [];
    for await (const event of stream) {
      names.push(event.event);
      if (event.event === "delta") {
        expect(typeof event.data.text).toBe("string");
      }
    }
    expect(names.at(-1)).toBe("done");
    expect(names).toContain("delta");
  });
});
