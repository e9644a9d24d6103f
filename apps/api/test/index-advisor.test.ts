import { existsSync } from "node:fs";
import { adviseIndexes, explainWithHypotheticalIndexes, type IndexAdviceSchema } from "@dbmon/contract";
import {
  execStatements,
  MACHINE_POSTGRES_BIN,
  machinePostgresBinariesAvailable,
  startPrimary,
  type TestServer,
} from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  buildTestApp,
  callBridgeTool,
  createUser,
  registerTestServer,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

type Advice = z.infer<typeof IndexAdviceSchema>;

/** HypoPG for the machine's PostgreSQL 15 (.ci/run installs postgresql-15-hypopg). */
const HYPOPG_CONTROL = `${MACHINE_POSTGRES_BIN.replace("/usr/lib/", "/usr/share/").replace(/\/bin$/, "")}/extension/hypopg.control`;

function hypoPGMissing(): string | undefined {
  if (!machinePostgresBinariesAvailable()) {
    return "PostgreSQL 15 binaries are missing";
  }
  return existsSync(HYPOPG_CONTROL) ? undefined : `HypoPG is missing (${HYPOPG_CONTROL})`;
}
const missing = hypoPGMissing();
if (missing) {
  console.warn(`skipping the index advisor's tests on a real workload: ${missing}`);
}

/** Statements of the seeded workload, as the application sends them (pg_stat_statements normalizes them). */
const RUNS = 25;

describe.skipIf(missing !== undefined)(
  "the index advisor on a real workload (PostgreSQL 15 with HypoPG)",
  () => {
    let t: TestApp;
    let root: TestUser;
    let plain: TestUser;
    let server: TestServer;
    let app: string;
    let connectionId: number;

    const catalogCounts = async () => {
      const [row] = await execStatements(
        app,
        "select (select count(*) from pg_class)::int as classes, (select count(*) from pg_index)::int as indexes",
      );
      return row;
    };

    beforeAll(async () => {
      [t, server] = await Promise.all([
        buildTestApp(),
        startPrimary("replica", { shared_preload_libraries: "'pg_stat_statements'" }),
      ]);
      root = await createUser(t, "root", { superuser: true });
      plain = await createUser(t, "plain");
      await execStatements(server.url, "create database app");
      app = server.urlOf("app");
      await execStatements(
        app,
        "create extension pg_stat_statements",
        "create extension hypopg",
        "create table customers (id integer primary key, email text not null, region text not null)",
        `insert into customers select g, 'user' || g || '@example.com', (array['north', 'south', 'east', 'west'])[1 + g % 4]
         from generate_series(1, 50000) g`,
        `create table orders (id integer primary key, customer_id integer not null, status text not null,
         created_at timestamptz not null, amount numeric not null)`,
        `insert into orders select g, 1 + (g::bigint * 7919) % 50000, (array['new', 'paid', 'shipped'])[1 + g % 3],
         '2026-01-01'::timestamptz + g * interval '1 minute', g % 1000 from generate_series(1, 300000) g`,
        "create index orders_created_at on orders (created_at)",
        "vacuum analyze",
        "select pg_stat_statements_reset()",
      );
      const client = postgres(app, { max: 1, onnotice: () => {} });
      try {
        for (let run = 1; run <= RUNS; run++) {
          const customer = 1 + ((run * 977) % 50000);
          await client`select id, amount from orders where customer_id = ${customer}`;
          await client`select o.id, o.amount from customers c join orders o on o.customer_id = c.id where c.email = ${`user${customer}@example.com`}`;
          await client`select * from orders where created_at > ${"2026-03-01T00:00:00Z"} order by created_at limit 10`;
          await client`select * from customers where id = ${customer}`;
        }
      } finally {
        await client.end();
      }
      const url = new URL(app);
      const created = await requestJson(t.app, "/api/v1/connections", {
        method: "POST",
        token: root.token,
        body: {
          name: "shop",
          host: url.hostname,
          port: Number(url.port),
          database_name: "app",
          username: "postgres",
          password: "unused-with-trust-auth",
          is_shared: false,
        },
      });
      expect(created.status).toBe(201);
      connectionId = ((await created.json()) as { id: number }).id;
    }, 180_000);

    afterAll(async () => {
      await t?.close();
      await server?.remove();
    });

    it("recommends the missing indexes of the top statements, 10× cheaper, nothing already covered, nothing created", async () => {
      const before = await catalogCounts();
      const advice = (await typedClient(t, root.token).call(adviseIndexes, {
        params: { id: connectionId },
        body: {},
      })) as Advice;

      expect(advice).toMatchObject({
        database_name: "app",
        workload_source: "pg_stat_statements",
        hypopg_version: "1.3.1",
        size_budget_bytes: 1024 * 1024 * 1024,
      });
      const byText = (fragment: string) => {
        const statement = advice.statements.find((candidate) => candidate.query.includes(fragment));
        expect(statement, fragment).toBeDefined();
        return statement as Advice["statements"][number];
      };
      const filter = byText("where customer_id = $1");
      const join = byText("join orders o on o.customer_id = c.id");
      for (const statement of [filter, join]) {
        expect(statement.calls).toBe(RUNS);
        expect(statement.skipped).toBeNull();
        expect((statement.cost_before as number) / (statement.cost_after as number)).toBeGreaterThanOrEqual(
          10,
        );
      }
      const recommended = advice.recommendations.map((recommendation) => [
        recommendation.table_name,
        recommendation.columns[0],
      ]);
      expect(recommended).toContainEqual(["orders", "customer_id"]);
      expect(recommended).toContainEqual(["customers", "email"]);
      // Served by the primary keys and orders_created_at already.
      expect(recommended).not.toContainEqual(["customers", "id"]);
      expect(recommended).not.toContainEqual(["orders", "created_at"]);
      expect(advice.already_covered.map((covered) => covered.existing_index)).toEqual(
        expect.arrayContaining(['"public"."orders_created_at"', '"public"."customers_pkey"']),
      );
      for (const recommendation of advice.recommendations) {
        expect(recommendation.create_index).toMatch(/^CREATE INDEX ON "public"\."(orders|customers)" \("/);
        expect(recommendation.estimated_size_bytes).toBeGreaterThan(0);
        expect(recommendation.helps.length).toBeGreaterThan(0);
      }
      expect(advice.total_cost_before / advice.total_cost_after).toBeGreaterThanOrEqual(10);
      expect(advice.estimated_size_bytes).toBe(
        advice.recommendations.reduce((sum, recommendation) => sum + recommendation.estimated_size_bytes, 0),
      );

      // Nothing was created: the catalog is as it was, and a new session has no hypothetical index.
      expect(await catalogCounts()).toEqual(before);
      expect(await execStatements(app, "select * from hypopg_list_indexes")).toEqual([]);
    });

    it("advises on given statements, binding their parameters from pg_stats, within a size budget", async () => {
      const api = typedClient(t, root.token);
      const advice = (await api.call(adviseIndexes, {
        params: { id: connectionId },
        body: {
          database_name: "app",
          statements: ["select id, amount from orders where customer_id = $1", "select 1"],
        },
      })) as Advice;
      expect(advice.workload_source).toBe("request");
      expect(advice.statements).toEqual([
        expect.objectContaining({ id: 1, calls: null, skipped: null }),
        {
          id: 2,
          query: "select 1",
          calls: null,
          cost_before: null,
          cost_after: null,
          skipped: "it reads no table an index can be made on",
        },
      ]);
      expect(advice.recommendations[0]).toMatchObject({
        schema_name: "public",
        table_name: "orders",
        columns: ["customer_id"],
        helps: [expect.objectContaining({ statement_id: 1 })],
      });

      // A budget smaller than any index: nothing fits.
      const tight = (await api.call(adviseIndexes, {
        params: { id: connectionId },
        body: { statements: ["select id from orders where customer_id = 42"], size_budget_mb: 1 },
      })) as Advice;
      expect(tight.recommendations).toEqual([]);
      expect(tight.statements[0]?.cost_after).toBe(tight.statements[0]?.cost_before);
    });

    it("plans a statement with hypothetical indexes", async () => {
      const answer = await typedClient(t, root.token).call(explainWithHypotheticalIndexes, {
        params: { id: connectionId },
        body: {
          statement: "select id, amount from orders where customer_id = 42",
          indexes: [
            "create index on orders (customer_id) include (amount)",
            "create index whatever on customers (region)",
          ],
        },
      });
      expect(answer).toMatchObject({
        database_name: "app",
        statement: "select id, amount from orders where customer_id = 42",
        indexes: [
          {
            create_index: 'CREATE INDEX ON "public"."orders" ("customer_id") INCLUDE ("amount")',
            used: true,
          },
          { create_index: 'CREATE INDEX ON "public"."customers" ("region")', used: false },
        ],
      });
      expect(answer.cost_before / answer.cost_after).toBeGreaterThanOrEqual(10);
      expect(answer.plan_before).toMatch(/Seq Scan on orders/);
      expect(answer.plan_after).toMatch(/Index.*"<\d+>btree_orders_customer_id_amount"/);
      expect(answer.indexes[0]?.hypothetical_name).toMatch(/^<\d+>btree_orders_customer_id/);
    });

    it("refuses bad input (400), unknown connections (404), callers without access (401, 403)", async () => {
      const path = `/api/v1/connections/${connectionId}/index-advice`;
      const post = (body: unknown, token: string | null = root.token, to = path) =>
        requestJson(t.app, to, { method: "POST", body, ...(token ? { token } : {}) });
      const refusals: [unknown, string][] = [
        [
          { statements: ["insert into orders values (1)"] },
          "Statement 1: only SELECT, UPDATE and DELETE statements can be served by an index (this is INSERT)",
        ],
        [{ statements: ["select 1; select 2"] }, "Statement 1: give exactly one SQL statement"],
        [
          { statements: ["select from where"] },
          'Syntax error: syntax error at or near "where" (at character 13)',
        ],
      ];
      for (const [body, error] of refusals) {
        const res = await post(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(await res.json()).toEqual({ error });
      }
      expect((await post({ size_budget_mb: 0 })).status).toBe(400);
      expect((await post({ statements: [] })).status).toBe(400);
      expect((await post({}, null)).status).toBe(401);
      const hidden = await post({}, plain.token);
      expect(hidden.status).toBe(403);
      const unknown = await post({}, root.token, "/api/v1/connections/999999/index-advice");
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: "Connection not found" });
      expect((await post({}, root.token, "/api/v1/connections/abc/index-advice")).status).toBe(400);
      const unknownExplain = await post(
        { statement: "select 1", indexes: ["create index on t (a)"] },
        root.token,
        "/api/v1/connections/999999/hypothetical-explain",
      );
      expect(unknownExplain.status).toBe(404);
      expect(
        (
          await post(
            { statement: "select 1", indexes: ["create index on t (a)"] },
            plain.token,
            `/api/v1/connections/${connectionId}/hypothetical-explain`,
          )
        ).status,
      ).toBe(403);

      const explain = (body: unknown) =>
        requestJson(t.app, `/api/v1/connections/${connectionId}/hypothetical-explain`, {
          method: "POST",
          body,
          token: root.token,
        });
      for (const [index, error] of [
        [
          "create index on orders ((customer_id + 1))",
          "Hypothetical indexes take plain columns, not expressions",
        ],
        [
          "create index on orders using gin (status)",
          "HypoPG cannot make hypothetical gin indexes (it can: btree, hash, brin)",
        ],
        ["create index on orders (nope)", "Column nope not found in table public.orders"],
        ["select 1", "A hypothetical index is given as CREATE INDEX ON table (column, ...)"],
      ]) {
        const res = await explain({ statement: "select 1 from orders", indexes: [index] });
        expect(res.status, index).toBe(400);
        expect(await res.json()).toEqual({ error });
      }
      expect((await explain({ statement: "select 1 from orders", indexes: [] })).status).toBe(400);
    });

    it("answers 409 with how to install HypoPG where the database lacks it", async () => {
      await execStatements(server.url, "create database bare");
      const res = await requestJson(t.app, `/api/v1/connections/${connectionId}/index-advice`, {
        method: "POST",
        token: root.token,
        body: { database_name: "bare", statements: ["select 1"] },
      });
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({
        error:
          'HypoPG is not installed in database "bare": run CREATE EXTENSION hypopg; in that database (no restart needed)',
      });
    });

    it("answers 409 without pg_stat_statements when no statements are given", async () => {
      await execStatements(server.url, "create database hypo_only");
      await execStatements(server.urlOf("hypo_only"), "create extension hypopg");
      const res = await requestJson(t.app, `/api/v1/connections/${connectionId}/index-advice`, {
        method: "POST",
        token: root.token,
        body: { database_name: "hypo_only" },
      });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: string }).error).toMatch(
        /^pg_stat_statements is not installed in database "hypo_only"/,
      );
    });

    it("serves the MCP tools recommend_indexes and explain_with_hypothetical_indexes", async () => {
      const advice = await callBridgeTool(t, root.token, "recommend_indexes", {
        connection_id: connectionId,
        statements: ["select id, amount from orders where customer_id = $1"],
      });
      expect(advice.isError).toBeUndefined();
      const text = advice.content[0]?.text ?? "";
      expect(text).toContain('CREATE INDEX ON "public"."orders" ("customer_id")');
      expect(text).toMatch(/helps statement 1: cost \d+(\.\d+)? → \d+(\.\d+)?/);

      const explained = await callBridgeTool(t, root.token, "explain_with_hypothetical_indexes", {
        connection_id: connectionId,
        query: "select id from orders where customer_id = 7",
        indexes: ["create index on orders (customer_id)"],
      });
      expect(explained.isError).toBeUndefined();
      expect(explained.content[0]?.text).toMatch(/Index.*"<\d+>btree_orders_customer_id"/);

      const refused = await callBridgeTool(t, root.token, "recommend_indexes", {
        connection_id: connectionId,
        database_name: "bare",
        statements: ["select 1"],
      });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/^HypoPG is not installed in database "bare"/);
    });
  },
);

/**
 * The not-installed path on whatever server the suite's datastore runs on: the embedded PostgreSQL 18
 * has no HypoPG package at all; the machine's PostgreSQL 15 has it, but not in a fresh database.
 */
describe("the index advisor where HypoPG is missing", () => {
  let t: TestApp;
  let root: TestUser;
  let connectionId: number;

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    connectionId = await registerTestServer(t, root.token);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers 409 saying how to install HypoPG, for both operations", async () => {
    const [row] = await execStatements(
      t.database.url,
      "select count(*)::int as available, current_setting('server_version_num')::int / 10000 as major from pg_available_extensions where name = 'hypopg'",
    );
    const database = `"${t.database.name}"`;
    const error =
      row?.available === 0
        ? `HypoPG is not available on this server: install the HypoPG package of its PostgreSQL version (on Debian or Ubuntu: apt-get install postgresql-${row?.major}-hypopg), then run CREATE EXTENSION hypopg; in database ${database} (no restart needed)`
        : `HypoPG is not installed in database ${database}: run CREATE EXTENSION hypopg; in that database (no restart needed)`;
    for (const [path, body] of [
      ["index-advice", { statements: ["select 1"] }],
      ["hypothetical-explain", { statement: "select 1", indexes: ["create index on t (a)"] }],
    ] as const) {
      const res = await requestJson(t.app, `/api/v1/connections/${connectionId}/${path}`, {
        method: "POST",
        token: root.token,
        body,
      });
      expect(res.status, path).toBe(409);
      expect(await res.json()).toEqual({ error });
    }
  });
});
