import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  callBridgeTool,
  createUser,
  registerTestServer,
  requestJson,
  type TestApp,
  type TestUser,
} from "./support.js";

describe("limits of user SQL", () => {
  let t: TestApp;
  let root: TestUser;
  let reader: TestUser;
  let connectionId: number;

  const query = (token: string, sql: string) =>
    requestJson(t.app, `/api/v1/connections/${connectionId}/query`, {
      method: "POST",
      token,
      body: { query: sql },
    });

  const waitForActive = (text: string, count: number) =>
    expect
      .poll(
        async () =>
          (
            await t.datastore.sql`select count(*)::int as n from pg_stat_activity
                                   where query = ${text} and state = 'active'`
          )[0]?.n,
        { timeout: 10_000 },
      )
      .toBe(count);

  beforeAll(async () => {
    t = await buildTestApp({ config: { sqlSessions: { perUser: 2, perServer: 3 } } });
    root = await createUser(t, "root", { superuser: true });
    reader = await createUser(t, "reader");
    connectionId = await registerTestServer(t, root.token);
    const group = await t.services.auth.groups.create("readers", "");
    await t.services.auth.groups.addMember(group.id, { userId: reader.id });
    await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/connections`, {
      method: "POST",
      token: root.token,
      body: { connection_id: connectionId, access_level: "read" },
    });
    await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/mcp`, {
      method: "PUT",
      token: root.token,
      body: { privileges: ["query_database"] },
    });
  });
  afterAll(async () => t.close());

  it("counts sessions per user and per server, for REST and MCP alike, and frees them after", {
    timeout: 60_000,
  }, async () => {
    const slow = [query(root.token, "select pg_sleep(2)"), query(root.token, "select pg_sleep(2)")];
    // The requests are in flight once their sessions show on the server.
    await waitForActive("select pg_sleep(2)", 2);

    const third = await query(root.token, "select 1");
    expect(third.status).toBe(429);
    expect(await third.json()).toEqual({
      error: "Too many SQL sessions: you may run 2 at once; wait for one to finish",
    });
    const throughMcp = await callBridgeTool(t, root.token, "query_database", {
      query: "select 1",
      connection_id: connectionId,
    });
    expect(throughMcp).toEqual({
      content: [
        { type: "text", text: "Too many SQL sessions: you may run 2 at once; wait for one to finish" },
      ],
      isError: true,
    });

    // Another user still has room, until the server's limit (3) is reached.
    const another = query(reader.token, "select pg_sleep(1)");
    await waitForActive("select pg_sleep(1)", 1);
    const full = await callBridgeTool(t, reader.token, "query_database", {
      query: "select 1",
      connection_id: connectionId,
    });
    expect(full.content[0]?.text).toBe(
      "Too many SQL sessions on this server: at most 3 run at once; try again shortly",
    );

    for (const response of await Promise.all([...slow, another])) {
      expect(response.status).toBe(200);
    }
    const after = await query(root.token, "select 1 as ok");
    expect(after.status).toBe(200);
  });

  it("keeps /health answering while eight requests hold the parser with nested-comment bombs", {
    timeout: 120_000,
  }, async () => {
    const bomb = `select 1 ${"/*".repeat(200_000)}`;
    let settled = 0;
    const bombs = Array.from({ length: 8 }, (_, n) =>
      query(n % 2 === 0 ? root.token : reader.token, bomb).then((response) => {
        settled++;
        return response;
      }),
    );
    const health = await t.app.request("/health");
    expect(health.status).toBe(200);
    // Answered while the parser threads were still busy with the bombs.
    expect(settled).toBe(0);
    for (const response of await Promise.all(bombs)) {
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: "The SQL could not be parsed within 3 s; nothing was sent to the server",
      });
    }
    // Nothing of the bombs reached the server.
    const sent = await t.datastore
      .sql`select count(*)::int as n from pg_stat_activity where query like 'select 1 /*%'`;
    expect(sent[0]?.n).toBe(0);
  });
});
