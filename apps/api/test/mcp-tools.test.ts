import { callMcpTool, listMcpTools } from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertMetrics, prepareMetrics, seedProbeDefaults } from "./monitoring-support.js";
import {
  type BridgeToolResult,
  buildTestApp,
  callBridgeTool,
  createUser,
  registerTestServer,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

const ALL_TOOLS = [
  "query_database",
  "get_schema_info",
  "execute_explain",
  "count_rows",
  "test_query",
  "similarity_search",
  "list_connections",
  "list_probes",
  "describe_probe",
  "query_metrics",
  "get_metric_baselines",
  "get_database_load",
  "get_top_queries_by_load",
  "get_lock_tree",
  "query_datastore",
  "get_alert_history",
  "get_alert_rules",
  "get_blackouts",
  "get_timeline_events",
  "store_memory",
  "recall_memories",
  "delete_memory",
  "generate_embedding",
  "search_knowledgebase",
  "read_resource",
];

type ToolResult = BridgeToolResult;

describe("MCP tools over the REST bridge", () => {
  let t: TestApp;
  let root: TestUser;
  let plain: TestUser;
  let granted: TestUser;
  let connectionId: number;
  let hiddenId: number;

  const call = (token: string, name: string, args: Record<string, unknown> = {}) =>
    callBridgeTool(t, token, name, args);
  const textOf = (result: ToolResult) => result.content.map((c) => c.text).join("\n");

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    plain = await createUser(t, "plain");
    granted = await createUser(t, "granted");
    // The test server stands in for a monitored server.
    connectionId = await registerTestServer(t, root.token);
    const [hidden] = await t.datastore.sql<{ id: number }[]>`
      insert into connections (name, host, port, database_name, username, owner_username, is_shared, is_monitored)
      values ('hidden', '127.0.0.1', 5432, 'postgres', 'postgres', 'root', false, false) returning id`;
    hiddenId = hidden?.id as number;
    // "granted" may use every MCP tool and reads the primary connection only.
    const group = await t.services.auth.groups.create("mcp-users", "");
    await t.services.auth.groups.addMember(group.id, { userId: granted.id });
    await t.datastore.sql`insert into group_mcp_privileges (group_id, privilege_identifier_id)
      select ${group.id}, id from mcp_privilege_identifiers where identifier = 'query_database'`.catch(
      () => {},
    );
    await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/mcp`, {
      method: "PUT",
      token: root.token,
      body: { privileges: ["*"] },
    });
    await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/connections`, {
      method: "PUT",
      token: root.token,
      body: { connections: [{ connection_id: connectionId, access_level: "read" }] },
    });
    await t.datastore.sql`create table mcp_orders (id int primary key, note text)`;
    await t.datastore.sql`insert into mcp_orders select g, 'note ' || g from generate_series(1, 25) g`;
    await seedProbeDefaults(t);
    const now = new Date();
    await prepareMetrics(t, now);
    await insertMetrics(
      t,
      "pg_connectivity",
      [1, 2, 3].map((minutes) => ({
        connection_id: connectionId,
        collected_at: new Date(now.getTime() - minutes * 60_000),
        response_time_ms: 10 * minutes,
      })),
    );
    await t.datastore.sql`
      insert into alerts (alert_type, connection_id, severity, title, description, status, metric_name)
      values ('threshold', ${connectionId}, 'warning', 'Too many connections', 'x', 'active', 'pg_stat_activity.count')`;
  });
  afterAll(() => t.close());

  it("lists every tool to a superuser, with JSON Schema inputs", async () => {
    const body = await typedClient(t, root.token).call(listMcpTools);
    expect(body.tools.map((tool) => tool.name).sort()).toEqual([...ALL_TOOLS].sort());
    const query = body.tools.find((tool) => tool.name === "query_database");
    expect(query?.inputSchema).toMatchObject({
      type: "object",
      required: ["query"],
      properties: { query: { type: "string" }, limit: { type: "integer", default: 100, maximum: 1000 } },
    });
    expect(query?.compactDescription).toBeTruthy();
  });

  it("lists only public tools and test_query to a user without MCP privileges", async () => {
    const body = await typedClient(t, plain.token).call(listMcpTools);
    expect(body.tools.map((tool) => tool.name).sort()).toEqual(
      ["delete_memory", "recall_memories", "store_memory", "test_query"].sort(),
    );
  });

  it("answers 400 without a tool name, 401 without a token", async () => {
    const res = await requestJson(t.app, "/api/v1/mcp/tools/call", {
      method: "POST",
      token: root.token,
      body: { arguments: {} },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "Tool name is required" });
    const anonymous = await requestJson(t.app, "/api/v1/mcp/tools/call", {
      method: "POST",
      body: { name: "x" },
    });
    expect(anonymous.status).toBe(401);
    expect((await requestJson(t.app, "/api/v1/mcp/tools/call", { token: root.token })).status).toBe(405);
  });

  it("refuses, as isError results, unknown tools, denied tools, bad arguments and hidden connections", async () => {
    expect(await call(root.token, "nope")).toEqual({
      content: [{ type: "text", text: "Tool not found: nope" }],
      isError: true,
    });
    expect(
      await call(plain.token, "query_database", { query: "select 1", connection_id: connectionId }),
    ).toEqual({
      content: [
        { type: "text", text: "Access denied: you do not have permission to use tool 'query_database'" },
      ],
      isError: true,
    });
    const bad = await call(root.token, "query_database", { query: 1 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Invalid arguments for query_database: query: /);
    const hidden = await call(granted.token, "query_database", {
      query: "select 1",
      connection_id: hiddenId,
    });
    expect(hidden).toEqual({
      content: [{ type: "text", text: `Access denied: you do not have access to connection ${hiddenId}` }],
      isError: true,
    });
    const unselected = await call(granted.token, "query_database", { query: "select 1" });
    expect(textOf(unselected)).toMatch(/^No connection selected/);
    // test_query needs no MCP privilege, but still access to the connection.
    expect(
      (await call(plain.token, "test_query", { query: "select 1", connection_id: connectionId })).isError,
    ).toBe(true);
  });

  it("narrows a superuser's scoped token to its MCP privileges", async () => {
    const issued = await requestJson(t.app, "/api/v1/rbac/tokens", {
      method: "POST",
      token: root.token,
      body: { owner_username: "root", annotation: "mcp" },
    });
    const token = (await issued.json()) as { id: number; token: string };
    const scope = await requestJson(t.app, `/api/v1/rbac/tokens/${token.id}/scope`, {
      method: "PUT",
      token: root.token,
      body: {
        mcp_privileges: ["list_connections"],
        connections: [{ connection_id: 0, access_level: "read" }],
      },
    });
    expect(scope.status).toBe(204);
    const listed = await typedClient(t, token.token).call(listMcpTools);
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(["list_connections", "test_query"]);
    expect(
      textOf(await call(token.token, "query_database", { query: "select 1", connection_id: connectionId })),
    ).toBe("Access denied: you do not have permission to use tool 'query_database'");
    expect(textOf(await call(token.token, "list_connections"))).toContain("primary");
  });

  it("runs the SQL tools on the execution core", async () => {
    const client = typedClient(t, granted.token);
    const rows = await client.call(callMcpTool, {
      body: {
        name: "query_database",
        arguments: {
          query: "select id, note from mcp_orders order by id",
          connection_id: connectionId,
          limit: 2,
          offset: 1,
        },
      },
    });
    expect(rows).toEqual({
      content: [
        {
          type: "text",
          text: "id\tnote\n2\tnote 2\n3\tnote 3\n(2 rows from offset 1; more rows exist: raise offset or limit)",
        },
      ],
    });
    const tabs = await call(granted.token, "query_database", {
      query: "select E'a\\tb' as x, null as y",
      connection_id: connectionId,
    });
    expect(textOf(tabs)).toBe("x\ty\na\\tb\tNULL\n(1 row)");
    const write = await call(root.token, "query_database", {
      query: "delete from mcp_orders",
      connection_id: connectionId,
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain('"confirmed": true');
    const readOnly = await call(granted.token, "query_database", {
      query: "delete from mcp_orders",
      connection_id: connectionId,
      confirmed: true,
    });
    expect(readOnly).toEqual({
      content: [{ type: "text", text: "Permission denied: you do not have write access to this connection" }],
      isError: true,
    });
    const sideEffect = await call(granted.token, "query_database", {
      query: "select pg_terminate_backend(1)",
      connection_id: connectionId,
    });
    // A function off the read-only list makes the statement a write: confirmation and read-write access.
    expect(sideEffect.isError).toBe(true);
    expect(textOf(sideEffect)).toContain("Write statements:\nselect pg_terminate_backend(1)\n");
    const transactionControl = await call(granted.token, "query_database", {
      query: "show search_path --\r; commit",
      connection_id: connectionId,
    });
    expect(textOf(transactionControl)).toBe(
      "Refused: transaction control (COMMIT): each request runs in one transaction of its own",
    );
    const confirmed = await call(root.token, "query_database", {
      query: "delete from mcp_orders where id = 25",
      connection_id: connectionId,
      confirmed: true,
    });
    expect(confirmed.isError).toBeUndefined();

    const schema = await call(granted.token, "get_schema_info", {
      connection_id: connectionId,
      schema_name: "public",
      table_name: "mcp_orders",
    });
    expect(textOf(schema).split("\n").slice(0, 3)).toEqual([
      "table_schema\ttable_name\tcolumn_name\tdata_type\tis_nullable\tcolumn_default\tconstraints",
      "public\tmcp_orders\tid\tinteger\tNO\tNULL\tPRIMARY KEY",
      "public\tmcp_orders\tnote\ttext\tYES\tNULL\tNULL",
    ]);
    // Planned, never run: the rows stay (count_rows below).
    expect(
      textOf(
        await call(granted.token, "execute_explain", {
          query: "delete from mcp_orders",
          connection_id: connectionId,
        }),
      ),
    ).toMatch(/^Delete on mcp_orders/);
    expect(
      textOf(await call(granted.token, "count_rows", { table: "mcp_orders", connection_id: connectionId })),
    ).toBe("24 rows in public.mcp_orders");
    expect(
      textOf(
        await call(granted.token, "count_rows", {
          table: "mcp_orders",
          where: "id <= 3",
          connection_id: connectionId,
        }),
      ),
    ).toBe("3 rows in public.mcp_orders where id <= 3");
    expect(
      (
        await call(granted.token, "count_rows", {
          table: "mcp_orders",
          where: "true; drop table mcp_orders",
          connection_id: connectionId,
        })
      ).isError,
    ).toBe(true);
    expect(
      textOf(await call(plain.token, "test_query", { query: "select 1", connection_id: hiddenId })),
    ).toMatch(/^Access denied/);
    expect(
      textOf(
        await call(granted.token, "test_query", {
          query: "select * from mcp_orders",
          connection_id: connectionId,
        }),
      ),
    ).toMatch(/^Query is valid/);
    expect(
      textOf(
        await call(granted.token, "test_query", {
          query: "select nope from mcp_orders",
          connection_id: connectionId,
        }),
      ),
    ).toMatch(/^Query is not valid: column "nope" does not exist/);
  });

  it("execute_explain and test_query plan a statement without ever running it", async () => {
    const explain = await call(granted.token, "execute_explain", {
      query: "select * from mcp_orders where id = 3",
      connection_id: connectionId,
    });
    expect(textOf(explain)).toMatch(/cost=/);
    expect(textOf(explain)).not.toMatch(/actual time/);
    const asked = await call(granted.token, "execute_explain", {
      query: "select 1",
      connection_id: connectionId,
      analyze: true,
    });
    expect(textOf(asked)).toMatch(/^Estimated plan \(dbmon never runs the query/);
    for (const [tool, query, refusal] of [
      [
        "execute_explain",
        "select pg_terminate_backend(1)",
        "execute_explain cannot plan the function pg_terminate_backend",
      ],
      [
        "execute_explain",
        "explain analyze select 1",
        "execute_explain takes the statement itself, without EXPLAIN",
      ],
      [
        "test_query",
        "EXPLAIN (ANALYZE) delete from mcp_orders",
        "test_query takes the statement itself, without EXPLAIN",
      ],
      [
        "test_query",
        "analyze mcp_orders",
        expect.stringMatching(/^test_query cannot plan the statement ANALYZE/),
      ],
      ["test_query", "select 1; delete from mcp_orders", "Give exactly one SQL statement"],
    ] as const) {
      const result = await call(granted.token, tool, { query, connection_id: connectionId });
      expect(result.isError, query).toBe(true);
      expect(textOf(result), query).toEqual(refusal);
    }
    expect(
      textOf(
        await call(granted.token, "test_query", {
          query: "delete from mcp_orders",
          connection_id: connectionId,
        }),
      ),
    ).toMatch(/^Query is valid\nDelete on mcp_orders/);
    expect(
      textOf(
        await call(granted.token, "test_query", { query: "select from where", connection_id: connectionId }),
      ),
    ).toMatch(/^Query is not valid: Syntax error: syntax error at or near "where"/);
    expect(
      textOf(await call(granted.token, "count_rows", { table: "mcp_orders", connection_id: connectionId })),
    ).toBe("24 rows in public.mcp_orders");
    const json = await call(granted.token, "execute_explain", {
      query: "select 1",
      connection_id: connectionId,
      analyze: false,
      format: "json",
    });
    expect(JSON.parse(textOf(json))[0].Plan).toBeDefined();
  });

  it("reads monitoring data through the same services as the REST API", async () => {
    expect(textOf(await call(granted.token, "list_connections"))).toMatch(
      new RegExp(`^id\tname\thost\tport\tdatabase_name\tis_monitored\tstatus\n${connectionId}\tprimary\t`),
    );
    expect(textOf(await call(granted.token, "list_connections"))).not.toContain("hidden");
    expect(textOf(await call(granted.token, "list_probes"))).toMatch(
      /^name\tscope\tinterval_seconds\tdescription\n/,
    );
    expect(textOf(await call(granted.token, "describe_probe", { probe_name: "pg_connectivity" }))).toContain(
      "response_time_ms\t",
    );
    expect((await call(granted.token, "describe_probe", { probe_name: "nope" })).isError).toBe(true);
    const metrics = await call(granted.token, "query_metrics", {
      probe_name: "pg_connectivity",
      connection_id: connectionId,
      time_start: "1h",
      buckets: 60,
    });
    expect(metrics.isError).toBeUndefined();
    expect(textOf(metrics).split("\n")[1]).toBe("time\tresponse_time_ms");
    expect(textOf(metrics).split("\n").length).toBeGreaterThan(2);
    const baselines = await call(granted.token, "get_metric_baselines", {
      connection_id: connectionId,
      metric_name: "pg_connectivity.response_time_ms",
    });
    expect(textOf(baselines)).toMatch(/^metric\tmean\tstddev/);
    expect(textOf(await call(granted.token, "get_alert_history", { status: "active" }))).toContain(
      "Too many connections",
    );
    expect(textOf(await call(granted.token, "get_alert_history", { metric_name: "nope" }))).toBe(
      "0 alert(s)\nNo alerts",
    );
    expect(textOf(await call(granted.token, "get_alert_rules", { connection_id: connectionId }))).toMatch(
      /^id\tname\tcategory/,
    );
    expect(textOf(await call(granted.token, "get_alert_rules", { connection_id: hiddenId }))).toMatch(
      /^Access denied/,
    );
    expect(textOf(await call(granted.token, "get_blackouts", { include_schedules: true }))).toBe(
      "0 blackout(s)\nNo blackouts\n\nSchedules\nNo schedules",
    );
    const timeline = await call(granted.token, "get_timeline_events", { start_time: "7d" });
    expect(timeline.isError).toBeUndefined();
    expect(textOf(timeline)).toMatch(/^\d+ event\(s\)/);
  });

  it("reads resources through read_resource, for the selected connection", async () => {
    expect(textOf(await call(root.token, "read_resource", { list: true }))).toContain("pg://connection_info");
    const selected = await requestJson(t.app, "/api/v1/connections/current", {
      method: "POST",
      token: granted.token,
      body: { connection_id: connectionId },
    });
    expect(selected.status).toBe(200);
    const info = JSON.parse(
      textOf(await call(granted.token, "read_resource", { uri: "pg://connection_info" })),
    );
    expect(info).toMatchObject({ id: connectionId, name: "primary" });
    expect(textOf(await call(granted.token, "read_resource", { uri: "pg://system_info" }))).toContain(
      '"connection"',
    );
    // With a connection selected, connection-bound tools need no connection_id.
    expect(textOf(await call(granted.token, "query_database", { query: "select 42 as answer" }))).toBe(
      "answer\n42\n(1 row)",
    );
  });

  it("answers arguments out of range (ids beyond int4, year 0, huge numbers) with tool errors, never a failure", async () => {
    const { tools } = await typedClient(t, root.token).call(listMcpTools);
    /** Plausible values for the required arguments, so that the argument under test is what is judged. */
    const required: Record<string, unknown> = {
      query: "select 1",
      table: "mcp_orders",
      table_name: "mcp_orders",
      query_text: "orders",
      probe_name: "pg_connectivity",
      metric_name: "pg_connectivity.response_time_ms",
      content: "a fact",
      category: "notes",
      text: "hello",
      id: 1,
    };
    const outOfRange: Record<"integer" | "number" | "time", unknown[]> = {
      integer: [2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e308, 2 ** 63],
      number: [1e308, -1e308],
      time: [
        "0000-01-01",
        "0000-01-01T00:00:00Z",
        "0001-01-01T00:00:00+01:00",
        "-000001-01-01T00:00:00Z",
        "+275760-09-13T00:00:00Z",
        "9999-12-31T23:59:59-12:00",
        "2026-02-30T00:00:00Z",
        "999999w",
        "999999d",
      ],
    };
    let tried = 0;
    const wrong: string[] = [];
    for (const tool of tools) {
      const properties = tool.inputSchema.properties as Record<string, { type?: string; enum?: unknown }>;
      const base = Object.fromEntries(
        (tool.inputSchema.required ?? []).map((name) => [name, required[name] ?? "x"]),
      );
      for (const [name, property] of Object.entries(properties)) {
        const kind =
          property.type === "integer" || property.type === "number"
            ? property.type
            : property.type === "string" && /time/.test(name)
              ? "time"
              : undefined;
        for (const value of kind ? outOfRange[kind] : []) {
          const res = await requestJson(t.app, "/api/v1/mcp/tools/call", {
            method: "POST",
            token: root.token,
            body: { name: tool.name, arguments: { ...base, [name]: value } },
          });
          const body = (await res.json()) as ToolResult;
          if (res.status !== 200 || body.isError !== true) {
            wrong.push(`${tool.name} ${name}=${String(value)}: ${res.status} ${JSON.stringify(body)}`);
          }
          tried += 1;
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(tried).toBeGreaterThan(100);
  });

  it("reports a missing embedding provider as a tool error", async () => {
    const result = await call(root.token, "generate_embedding", { text: "hello" });
    expect(result.isError).toBe(true);
  });
});

describe("get_alert_history on a busy fleet", () => {
  let t: TestApp;
  let root: TestUser;
  let busyId: number;
  let ruleId: number;
  const BUSY = 2_500;

  const history = async (args: Record<string, unknown>) => {
    const result = await callBridgeTool(t, root.token, "get_alert_history", args);
    expect(result.isError).toBeUndefined();
    const [count, header, ...rows] = result.content
      .map((c) => c.text)
      .join("\n")
      .split("\n");
    const columns = (header ?? "").split("\t");
    const idColumn = columns.indexOf("id");
    return {
      count: Number(/^(\d+) alert\(s\)$/.exec(count ?? "")?.[1]),
      ids: rows.map((row) => Number(row.split("\t")[idColumn])),
    };
  };

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    busyId = await registerTestServer(t, root.token, "busy");
    const quietId = await registerTestServer(t, root.token, "quiet");
    const [rule] = await t.datastore.sql<{ id: number }[]>`
      insert into alert_rules (name, description, category, metric_name, default_operator, default_threshold, default_severity)
      values ('Busy backends', 'x', 'connections', 'busy.backends', '>', 10, 'warning') returning id`;
    ruleId = rule?.id as number;
    // The busy server's alerts of the rule, one per table (one open alert per rule and object), one a
    // minute into the past (all within the default 7 days), a third of them cleared; then alerts the filters must leave out: another metric on the busy
    // server, and the rule's metric on the quiet one.
    await t.datastore.sql`
      insert into alerts (alert_type, rule_id, connection_id, object_name, severity, title, status, metric_name, metric_value, triggered_at, cleared_at)
      select 'threshold', ${ruleId}, ${busyId}, 'table_' || i, 'warning', 'Busy backends ' || i,
             case when i % 3 = 0 then 'cleared' else 'active' end, 'busy.backends', i,
             now() - i * interval '1 minute',
             case when i % 3 = 0 then now() - i * interval '1 minute' + interval '30 seconds' end
      from generate_series(1, ${BUSY}) as i`;
    await t.datastore.sql`
      insert into alerts (alert_type, connection_id, severity, title, status, metric_name, triggered_at)
      select 'threshold', ${busyId}, 'info', 'Other ' || i, 'active', 'other.metric', now() - i * interval '1 minute'
      from generate_series(1, 700) as i`;
    await t.datastore.sql`
      insert into alerts (alert_type, rule_id, connection_id, object_name, severity, title, status, metric_name, triggered_at)
      select 'threshold', ${ruleId}, ${quietId}, 'table_' || i, 'warning', 'Quiet ' || i, 'active', 'busy.backends', now() - i * interval '1 minute'
      from generate_series(1, 300) as i`;
  });
  afterAll(() => t.close());

  it.each([
    ["metric_name", () => ({ connection_id: busyId, metric_name: "busy.backends" })],
    ["rule_id", () => ({ connection_id: busyId, rule_id: ruleId })],
  ])(
    "pages through all 2,500 alerts filtered by %s in SQL: every alert once, the true total",
    async (_, filter) => {
      const seen: number[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await history({ ...filter(), limit: 100, offset });
        expect(page.count).toBe(BUSY);
        if (page.ids.length === 0) {
          break;
        }
        seen.push(...page.ids);
      }
      expect(seen).toHaveLength(BUSY);
      expect(new Set(seen).size).toBe(BUSY);
      // Newest first across the pages.
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
    },
  );

  it("combines the SQL filters with status and the time window", async () => {
    const cleared = Math.floor(BUSY / 3);
    expect(
      (await history({ metric_name: "busy.backends", connection_id: busyId, status: "cleared" })).count,
    ).toBe(cleared);
    // The rule's alerts on both servers, fired in the last 24 hours (1,440 minutes) each.
    expect((await history({ rule_id: ruleId, time_start: "24h" })).count).toBe(1439 + 300);
  });
});
