import { allOperations, type Operation } from "@dbmon/contract";
import { configFor, type FakeProvider, startFakeProvider } from "@dbmon/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, type TestApp, typedClient } from "./support.js";

/** Query parameters some reads need to answer at all. */
const requiredQueries: Record<string, Record<string, unknown>> = {
  queryMetrics: { probe_name: "pg_stat_database", connection_id: 1 },
  getMetricBaselines: { probe_name: "pg_stat_database", connection_id: 1 },
  listLLMModels: { provider: "openai" },
  listTimelineEvents: { start_time: "2026-11-01T00:00:00Z", end_time: "2026-11-02T00:00:00Z" },
  getPerformanceSummary: { connection_id: 1 },
  getDatabaseSummaries: { connection_id: 1 },
  getTopQueries: { connection_id: 1 },
  getLatestSnapshot: { probe_name: "pg_stat_database", connection_id: 1 },
};

/**
 * Every JSON read without a path parameter, through the typed client, checked against its schema
 * (event streams never end; overview.test.ts reads theirs).
 */
const reads = allOperations.filter(
  (operation) =>
    operation.method === "get" &&
    !operation.path.includes("{") &&
    !(
      "text/event-stream" in
      ((operation.responses as Record<string, { content?: object }>)["200"]?.content ?? {})
    ),
);

describe("response shapes", () => {
  let t: TestApp;
  let token: string;
  let provider: FakeProvider;
  beforeAll(async () => {
    // A chat provider, for the reads that need one (the estate overview starts its first summary).
    provider = await startFakeProvider();
    provider.script({ text: "The estate is quiet." });
    t = await buildTestApp({ config: { llm: configFor(provider, "openai") } });
    token = (await createUser(t, "root", { superuser: true })).token;
    await t.datastore.sql`
      insert into connections (name, host, port, database_name, username, owner_username, is_shared)
      values ('shapes', '127.0.0.1', 5432, 'postgres', 'postgres', 'root', false)`;
    const current = await t.app.request("/api/v1/connections/current", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ connection_id: 1 }),
    });
    expect(current.status).toBe(200);
  });
  afterAll(async () => {
    await t.services.overview.stop();
    await t.close();
    await provider.close();
  });

  it("covers the reads of the contract", () => {
    expect(reads.length).toBeGreaterThanOrEqual(25);
  });

  it.each(reads.map((operation) => [operation.operationId, operation] as const))(
    "%s answers what its schema describes",
    async (operationId, operation) => {
      const query = requiredQueries[operationId as string];
      const call = typedClient(t, token).call as (op: Operation, input?: unknown) => Promise<unknown>;
      await expect(call(operation, query ? { query } : {})).resolves.not.toBeUndefined();
    },
  );
});
