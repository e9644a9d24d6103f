import { loadLlmConfig } from "@dbmon/llm";
import { type FakeProvider, fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chunkText,
  describeTableSql,
  maximalMarginalRelevance,
  nearestRowsSql,
  type VectorTable,
  vectorTableOf,
} from "../src/mcp/tools/similarity.js";
import { runStatements } from "../src/sql/run.js";
import { parseSql } from "./sql-support.js";
import {
  buildTestApp,
  callBridgeTool,
  createUser,
  registerTestServer,
  type TestApp,
  type TestUser,
} from "./support.js";

// The machine's PostgreSQL 15 and the embedded PostgreSQL 18 come without pgvector, so the search
// itself is checked through the SQL it builds and the selection it makes; the calls below reach the
// monitored server and stop where pgvector is missing.

const docs: VectorTable = {
  relation: "public.docs",
  vectorColumn: "embedding",
  dimensions: 3,
  textColumns: ["title", "body"],
  keyColumn: "id",
};

describe("similarity_search's SQL and selection", () => {
  it("orders by the metric's pgvector operator against the query vector", () => {
    expect(nearestRowsSql(docs, [0.5, -1, 2], "cosine", 40)).toBe(
      `select "id"::text, "title"::text, "body"::text, "embedding"::text, ("embedding" <=> '[0.5,-1,2]'::vector)::float8
  from public.docs
 where "embedding" is not null
 order by "embedding" <=> '[0.5,-1,2]'::vector
 limit 40`,
    );
    expect(nearestRowsSql(docs, [1], "l2", 4)).toContain(`order by "embedding" <-> '[1]'::vector`);
    expect(nearestRowsSql({ ...docs, keyColumn: null }, [1], "inner_product", 4)).toMatch(
      /^select ctid::text, .*order by "embedding" <#> '\[1\]'::vector/s,
    );
  });

  it("looks the table up through to_regclass with the name as a literal", () => {
    expect(describeTableSql("public.it's")).toContain("to_regclass('public.it''s')");
  });

  it("finds the vector column, text columns and key, or says what is missing", () => {
    const columns = JSON.stringify([
      { name: "id", type: "int4", typmod: -1 },
      { name: "title", type: "text", typmod: -1 },
      { name: "meta", type: "jsonb", typmod: -1 },
      { name: "embedding", type: "vector", typmod: 3 },
    ]);
    const result = {
      query: "",
      columns: [],
      row_count: 1,
      truncated: false,
      rows: [["public.docs", columns, "id"]],
    };
    expect(vectorTableOf("docs", result)).toEqual({ ...docs, textColumns: ["title", "meta"] });
    expect(vectorTableOf("nope", { ...result, rows: [] })).toBe(
      "Table nope not found (give it as schema.table if it is not on the search path)",
    );
    const plain = JSON.stringify([{ name: "id", type: "int4", typmod: -1 }]);
    expect(vectorTableOf("docs", { ...result, rows: [["public.docs", plain, "id"]] })).toMatch(
      /^Table public\.docs has no pgvector column/,
    );
  });

  it("keeps relevant rows and drops near-duplicates as lambda falls", () => {
    const query = [1, 0];
    const candidates = [
      [1, 0.01],
      [1, 0.02],
      [0.7, 0.7],
    ];
    expect(maximalMarginalRelevance(query, candidates, 2, 1)).toEqual([0, 1]);
    expect(maximalMarginalRelevance(query, candidates, 2, 0.3)).toEqual([0, 2]);
    expect(maximalMarginalRelevance(query, candidates, 5, 0.6)).toHaveLength(3);
  });

  it("cuts text into chunks of about the given number of tokens", () => {
    const words = Array.from({ length: 30 }, (_, at) => `word${at}`).join(" ");
    const chunks = chunkText(words, 20);
    expect(chunks.join(" ")).toBe(words);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((chunk) => chunk.length / 4 <= 21)).toBe(true);
  });
});

describe("similarity_search on a monitored server", () => {
  let fake: FakeProvider;
  let t: TestApp;
  let bare: TestApp;
  let root: TestUser;
  let bareRoot: TestUser;
  let connectionId: number;

  const call = (app: TestApp, token: string, args: Record<string, unknown>) =>
    callBridgeTool(app, token, "similarity_search", args);

  beforeAll(async () => {
    fake = await startFakeProvider();
    const llm = loadLlmConfig({ ...fakeProviderEnv(fake, undefined), DBMON_LLM_EMBED_PROVIDER: "openai" });
    t = await buildTestApp({ config: { llm } });
    bare = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    bareRoot = await createUser(bare, "root", { superuser: true });
    connectionId = await registerTestServer(t, root.token);
  });
  afterAll(async () => {
    await t.close();
    await bare.close();
    await fake.close();
  });

  it("says when pgvector is missing from the monitored database", async () => {
    const url = new URL(t.database.url);
    const vectorAvailable = await runStatements({
      connection: {
        host: url.hostname,
        port: Number(url.port),
        database: t.database.name,
        // The test server's own credentials: trust on CI's, a password on the embedded one.
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
      },
      statements: await parseSql("select count(*) from pg_available_extensions where name = 'vector'"),
      mode: "read_only",
    });
    // Where pgvector can be installed this test would have to create it first: it documents the
    // machine it was written on.
    expect(vectorAvailable.results[0]?.rows[0]?.[0]).toBe("0");
    expect(
      await call(t, root.token, {
        table_name: "docs",
        query_text: "slow queries",
        connection_id: connectionId,
      }),
    ).toEqual({
      content: [
        {
          type: "text",
          text: `similarity_search needs the pgvector extension, which is not installed in database ${t.database.name} of connection ${connectionId} (CREATE EXTENSION vector)`,
        },
      ],
      isError: true,
    });
    // Nothing was embedded for a search that could not run.
    expect(fake.requests.filter((request) => request.path.endsWith("embeddings"))).toEqual([]);
  });

  it("says when no embedding provider is configured", async () => {
    expect(await call(bare, bareRoot.token, { table_name: "docs", query_text: "x" })).toEqual({
      content: [
        {
          type: "text",
          text: "similarity_search needs an embedding provider to embed the query: configure DBMON_LLM_EMBED_PROVIDER (the model that embedded the table)",
        },
      ],
      isError: true,
    });
  });

  it("needs the similarity_search privilege", async () => {
    const plain = await createUser(t, "plain");
    expect(
      await call(t, plain.token, { table_name: "docs", query_text: "x", connection_id: connectionId }),
    ).toEqual({
      content: [
        { type: "text", text: "Access denied: you do not have permission to use tool 'similarity_search'" },
      ],
      isError: true,
    });
  });
});
