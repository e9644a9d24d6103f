import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import {
  type ChatStreamDone,
  type ChatStreamEvent,
  createClient,
  createDbmon,
  DbmonApiError,
  DbmonError,
  DbmonNetworkError,
  DbmonTimeoutError,
  DbmonValidationError,
  type EventStream,
  type GetHealthResult,
  getHealth,
  type ListAlertsParams,
  type LoginParams,
  NotFoundError,
  type Overview,
  type OverviewStreamEvent,
  type ParamsOf,
  type SseEvent,
  type TestNotificationChannelParams,
  UnauthorizedError,
  type UpdateConnectionParams,
} from "../src/index.js";
import { contractValidator } from "../src/validate.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise((resolve) => {
          s.closeAllConnections();
          s.close(resolve);
        }),
    ),
  );
});

/** A real HTTP server answering each request with the next of `answers`. */
async function serve(...answers: ((res: import("node:http").ServerResponse) => void)[]) {
  const seen: { method?: string; url?: string; headers: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    (answers[Math.min(seen.length - 1, answers.length - 1)] as (r: typeof res) => void)(res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (res: import("node:http").ServerResponse) => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  };
const fast = { baseDelay: 1, maxDelay: 50 };

describe("types", () => {
  it("types parameters as the API reads them, and results as it answers", () => {
    expectTypeOf<GetHealthResult>().toEqualTypeOf<{ status: "ok"; server: "dbmon"; version: string }>();
    expectTypeOf<ListAlertsParams["limit"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ListAlertsParams["exclude_cleared"]>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<ListAlertsParams["status"]>().toEqualTypeOf<
      "active" | "acknowledged" | "cleared" | undefined
    >();
    expectTypeOf<ListAlertsParams["connection_ids"]>().toEqualTypeOf<readonly number[] | undefined>();
    expectTypeOf<UpdateConnectionParams["connection_id"]>().toEqualTypeOf<number>();
    expectTypeOf<ParamsOf<typeof getHealth>>().toEqualTypeOf<undefined>();
    // A body declared `required: false` may be left out; the required fields of a body may not.
    expectTypeOf<{ channel_id: number }>().toExtend<TestNotificationChannelParams>();
    expectTypeOf<{ username: string }>().not.toExtend<LoginParams>();
    const dbmon = createDbmon({ baseUrl: "http://x" });
    expectTypeOf(dbmon.serverInfo.get).parameter(0).toMatchTypeOf<{ connection_id: number }>();
    expectTypeOf(dbmon.utilities.getHealth).returns.resolves.toEqualTypeOf<GetHealthResult>();
    const fields = createDbmon({ baseUrl: "http://x", responseStyle: "fields" });
    expectTypeOf(fields.utilities.getHealth).returns.resolves.toHaveProperty("error");
    expectTypeOf<Awaited<ReturnType<typeof dbmon.llm.chatStream>>>().toEqualTypeOf<
      EventStream<ChatStreamEvent>
    >();
  });

  it("types each stream's events from the contract's event schemas", () => {
    expectTypeOf<ChatStreamEvent["event"]>().toEqualTypeOf<"delta" | "tool_use" | "done" | "error">();
    expectTypeOf<Extract<ChatStreamEvent, { event: "delta" }>["data"]>().toEqualTypeOf<{ text: string }>();
    expectTypeOf<Extract<ChatStreamEvent, { event: "done" }>["data"]>().toEqualTypeOf<ChatStreamDone>();
    expectTypeOf<Extract<ChatStreamEvent, { event: "error" }>["data"]["error"]>().toEqualTypeOf<string>();
    expectTypeOf<OverviewStreamEvent>().toEqualTypeOf<SseEvent<"overview", Overview>>();
    const dbmon = createDbmon({ baseUrl: "http://x" });
    expectTypeOf<Awaited<ReturnType<typeof dbmon.overview.stream>>>().toEqualTypeOf<
      EventStream<OverviewStreamEvent>
    >();
  });
});

describe("transport", () => {
  it("retries an idempotent request that fails twice, honouring Retry-After", async () => {
    const { baseUrl, seen } = await serve(
      json(503, { error: "busy" }, { "retry-after": "0" }),
      json(502, { error: "bad gateway" }),
      json(200, { status: "ok", server: "dbmon", version: "1" }),
    );
    const client = createClient({ baseUrl, retry: fast });
    expect(await client.call(getHealth)).toEqual({ status: "ok", server: "dbmon", version: "1" });
    expect(seen).toHaveLength(3);
  });

  it("never retries a POST", async () => {
    const { baseUrl, seen } = await serve(json(503, { error: "busy" }));
    const dbmon = createDbmon({ baseUrl, retry: fast });
    await expect(dbmon.auth.login({ username: "a", password: "b" })).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });

  it("throws typed errors carrying status, message, body and request id", async () => {
    const { baseUrl } = await serve(json(404, { error: "Connection not found" }, { "x-request-id": "r-1" }));
    const dbmon = createDbmon({ baseUrl });
    const error = await dbmon.connections.get({ connection_id: 7 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toBeInstanceOf(DbmonApiError);
    expect(error).toMatchObject({
      status: 404,
      message: "Connection not found",
      requestId: "r-1",
      body: { error: "Connection not found" },
    });
  });

  it("returns { data, error } in fields style", async () => {
    const { baseUrl } = await serve(
      json(404, { error: "nope" }),
      json(200, { status: "ok", server: "dbmon", version: "1" }),
    );
    const dbmon = createDbmon({ baseUrl, responseStyle: "fields" });
    const failed = await dbmon.connections.get({ connection_id: 1 });
    expect(failed.data).toBeUndefined();
    expect(failed.error).toBeInstanceOf(NotFoundError);
    const ok = await dbmon.utilities.getHealth();
    expect(ok).toMatchObject({ data: { status: "ok" }, error: undefined });
  });

  it("tells network failures and timeouts from API errors, and aborts", async () => {
    const dead = createClient({ baseUrl: "http://127.0.0.1:1", retry: false });
    await expect(dead.call(getHealth)).rejects.toBeInstanceOf(DbmonNetworkError);
    const { baseUrl } = await serve(() => {});
    const slow = createClient({ baseUrl, timeout: 50, retry: false });
    await expect(slow.call(getHealth)).rejects.toBeInstanceOf(DbmonTimeoutError);
    const controller = new AbortController();
    const pending = createClient({ baseUrl, timeout: 0 }).call(getHealth, undefined, {
      signal: controller.signal,
    });
    controller.abort(new Error("user gave up"));
    await expect(pending).rejects.toThrow("user gave up");
  });

  it("asks the token provider per request and retries once after onUnauthorized refreshes", async () => {
    const { baseUrl, seen } = await serve(
      json(401, { error: "expired" }),
      json(200, { status: "ok", server: "dbmon", version: "1" }),
    );
    let n = 0;
    const refreshed: unknown[] = [];
    const client = createClient({
      baseUrl,
      token: async () => `t${++n}`,
      headers: { "x-app": "test" },
      onUnauthorized: (error) => {
        refreshed.push(error);
        return true;
      },
    });
    await client.call(getHealth);
    expect(refreshed[0]).toBeInstanceOf(UnauthorizedError);
    expect(seen.map((s) => s.headers.authorization)).toEqual(["Bearer t1", "Bearer t2"]);
    expect(seen[1]?.headers["x-app"]).toBe("test");
  });

  it("iterates a paged list", async () => {
    const { baseUrl, seen } = await serve(
      json(200, { conversations: [{ id: "1" }, { id: "2" }] }),
      json(200, { conversations: [{ id: "3" }] }),
    );
    const dbmon = createDbmon({ baseUrl });
    const ids: string[] = [];
    for await (const c of dbmon.conversations.iterate({ limit: 2 })) {
      ids.push(c.id);
    }
    expect(ids).toEqual(["1", "2", "3"]);
    expect(seen.map((s) => s.url)).toEqual([
      "/api/v1/conversations?limit=2&offset=0",
      "/api/v1/conversations?limit=2&offset=2",
    ]);
  });

  it("iterates by the server's paging: a limit above the cap is asked as the cap, and the total ends it", async () => {
    const alerts = Array.from({ length: 2500 }, (_, i) => ({ id: i + 1 }));
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? "");
      const query = new URL(req.url ?? "", "http://x").searchParams;
      // As dbmon does: a page never holds more than 1,000 alerts, whatever the limit.
      const limit = Math.min(Number(query.get("limit")), 1000);
      const offset = Number(query.get("offset"));
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ alerts: alerts.slice(offset, offset + limit), total: alerts.length }));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const dbmon = createDbmon({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const ids: number[] = [];
    for await (const alert of dbmon.alerts.iterate({ limit: 5000 })) {
      ids.push(alert.id);
    }
    expect(ids).toEqual(alerts.map((a) => a.id));
    expect(seen).toEqual([
      "/api/v1/alerts?limit=1000&offset=0",
      "/api/v1/alerts?limit=1000&offset=1000",
      "/api/v1/alerts?limit=1000&offset=2000",
    ]);
  });

  it("reconnects a GET stream with Last-Event-ID", async () => {
    const sse = (text: string) => (res: import("node:http").ServerResponse) => {
      res.writeHead(200, { "content-type": "text/event-stream" }).end(text);
    };
    const { baseUrl, seen } = await serve(
      sse('retry: 1\nid: a\nevent: overview\ndata: {"summary":"one"}\n\n'),
      sse('id: b\nevent: overview\ndata: {"summary":"two"}\n\n'),
    );
    const client = createClient({ baseUrl });
    const stream = await client.stream(
      { method: "get", path: "/api/v1/overview/stream" },
      {},
      { reconnect: true },
    );
    const got: unknown[] = [];
    for await (const event of stream) {
      got.push(event);
      if (got.length === 2) {
        stream.close();
      }
    }
    expect(got).toEqual([
      { event: "overview", id: "a", data: { summary: "one" } },
      { event: "overview", id: "b", data: { summary: "two" } },
    ]);
    expect(seen[1]?.headers["last-event-id"]).toBe("a");
  });

  it("keeps the base URL's path, with or without a trailing slash", async () => {
    const { baseUrl, seen } = await serve(json(200, { id: 3, name: "db" }));
    for (const prefix of ["/dbmon", "/dbmon/", "/a/b//"]) {
      await createDbmon({ baseUrl: baseUrl + prefix }).connections.get({ connection_id: 3 });
    }
    await createDbmon({ baseUrl: `${baseUrl}/` }).alerts.list({ limit: 1 });
    // In a browser a relative base URL is the page's origin with that path.
    vi.stubGlobal("location", { href: `${baseUrl}/app/page.html` });
    try {
      await createDbmon({ baseUrl: "/dbmon" }).connections.get({ connection_id: 3 });
    } finally {
      vi.unstubAllGlobals();
    }
    expect(seen.map((s) => s.url)).toEqual([
      "/dbmon/api/v1/connections/3",
      "/dbmon/api/v1/connections/3",
      "/a/b/api/v1/connections/3",
      "/api/v1/alerts?limit=1",
      "/dbmon/api/v1/connections/3",
    ]);
  });

  it("sends namespaced methods to their routes: client parameter names, lists comma-joined, options first where there is no input", async () => {
    const { baseUrl, seen } = await serve(
      json(200, { session_token: "s-1", expires_at: "2026-11-27T00:00:00Z" }),
      json(200, { users: [] }),
    );
    const dbmon = createDbmon({ baseUrl });
    await dbmon.auth.login({ username: "a", password: "b" });
    await dbmon.rbac.users.list({ headers: { "x-trace": "t-1" } });
    await dbmon.clusters.removeServerFromCluster({ cluster_id: "cluster-2", connection_id: 5 });
    await dbmon.alerts.list({ connection_ids: [1, 2], status: "active" });
    await dbmon.metrics.query({ connection_ids: [3], probe_name: "pg_stat_database", metrics: ["a", "b"] });
    await dbmon.rbac.groups.addMember({ group_id: 7, body: { group_id: 8 } });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "POST /api/v1/auth/login",
      "GET /api/v1/rbac/users",
      "DELETE /api/v1/clusters/cluster-2/servers/5",
      "GET /api/v1/alerts?connection_ids=1%2C2&status=active",
      "GET /api/v1/metrics/query?connection_ids=3&probe_name=pg_stat_database&metrics=a%2Cb",
      "POST /api/v1/rbac/groups/7/members",
    ]);
    // auth.login kept the session token; the options of a method without input are its first argument.
    expect(seen[1]?.headers).toMatchObject({ authorization: "Bearer s-1", "x-trace": "t-1" });
  });

  it("keeps no session token in cookie mode", async () => {
    const { baseUrl, seen } = await serve(json(200, { session_token: "s-1", expires_at: "x" }));
    const dbmon = createDbmon({ baseUrl, credentials: "include" });
    expect((await dbmon.auth.login({ username: "a", password: "b" })).session_token).toBe("s-1");
    await dbmon.auth.getUserInfo().catch(() => undefined);
    expect(seen[1]?.headers.authorization).toBeUndefined();
  });

  it("throws a missing path parameter at once, neither sent nor retried", async () => {
    const { baseUrl, seen } = await serve(json(200, {}));
    const error = await createClient({ baseUrl })
      .call(getHealth, undefined)
      .then(() => createDbmon({ baseUrl }).connections.get({} as { connection_id: number }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DbmonError);
    expect(error).not.toBeInstanceOf(DbmonNetworkError);
    expect((error as Error).message).toBe("missing path parameter connection_id");
    expect(seen).toHaveLength(1);
  });
});

describe("validation mode", () => {
  const health = { status: "ok", server: "dbmon", version: "1" };

  it("passes answers that match their schemas, and leaves them as received", async () => {
    const { baseUrl } = await serve(json(200, { ...health, extra: true }));
    const dbmon = createDbmon({ baseUrl, validate: contractValidator() });
    expect(await dbmon.utilities.getHealth()).toEqual({ ...health, extra: true });
  });

  it("throws DbmonValidationError with the issues for an answer that does not match", async () => {
    const { baseUrl } = await serve(json(200, { status: "ok", server: "other" }));
    const dbmon = createDbmon({ baseUrl, validate: contractValidator() });
    const error = await dbmon.utilities.getHealth().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DbmonValidationError);
    expect(error).toBeInstanceOf(DbmonError);
    const { issues, body, response, route } = error as DbmonValidationError;
    expect(issues.map((issue) => issue.path)).toEqual([["server"], ["version"]]);
    expect(body).toEqual({ status: "ok", server: "other" });
    expect(response.status).toBe(200);
    expect(route).toMatchObject({ method: "get", path: "/health" });
    expect((error as Error).message).toMatch(
      /^GET \/health: the response does not match its schema \(server: /,
    );
  });

  it("checks each page of an iterator, and gives the error as a field in fields style", async () => {
    const { baseUrl } = await serve(json(200, { conversations: [{ id: 1 }] }));
    const iterate = createDbmon({ baseUrl, validate: contractValidator() }).conversations.iterate();
    await expect(iterate[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(DbmonValidationError);
    const fields = createDbmon({ baseUrl, validate: contractValidator(), responseStyle: "fields" });
    const { data, error } = await fields.conversations.list();
    expect(data).toBeUndefined();
    expect(error).toBeInstanceOf(DbmonValidationError);
  });

  it("does not check error answers, which stay API errors", async () => {
    const { baseUrl } = await serve(json(404, { unexpected: "shape" }));
    const dbmon = createDbmon({ baseUrl, validate: contractValidator() });
    await expect(dbmon.connections.get({ connection_id: 1 })).rejects.toBeInstanceOf(NotFoundError);
  });
});
