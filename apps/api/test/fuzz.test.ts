import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { createHostPolicy, encryptSecret } from "@dbmon/datastore";
import { loadLlmConfig } from "@dbmon/llm";
import { type FakeProvider, fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp } from "./support.js";

/**
 * Requests generated from the OpenAPI document for every operation, valid and invalid alike (huge
 * and negative numbers, NUL characters, long strings, wrong types, broken JSON): every answer must
 * be a JSON client error or success, never a 500. CI runs a few hundred; `pnpm fuzz` runs
 * FUZZ_RUNS (20,000) and prints "fuzz: N requests, N server errors".
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  nullable?: boolean;
};
type Parameter = { name: string; in: "path" | "query" | "header" | "cookie"; schema?: Schema };
type OperationObject = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content?: { "application/json"?: { schema?: Schema } } };
};

const document = JSON.parse(
  readFileSync(new URL("../../../packages/contract/openapi.json", import.meta.url), "utf8"),
) as {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema> };
};

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

function resolve(schema: Schema | undefined): Schema {
  if (!schema) {
    return {};
  }
  if (schema.$ref) {
    return resolve(document.components.schemas[schema.$ref.replace("#/components/schemas/", "")]);
  }
  const [first] = schema.allOf ?? schema.anyOf ?? schema.oneOf ?? [];
  return first ? { ...resolve(first), nullable: schema.nullable } : schema;
}

/** Values no schema expects, and edge values of the ones they do. */
const hostileText = fc.oneof(
  fc.constantFrom("", " ", "\u0000", "a\u0000b", "null", "-1", "0", "1e309", "NaN", "💥", "../../etc/passwd"),
  fc.constantFrom("2147483648", "99999999999", "9223372036854775808", "-2147483649", "0x10", "1.5"),
  fc.string({ maxLength: 20 }),
  fc.string({ minLength: 2_000, maxLength: 5_000 }),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, 1, 2, 2_147_483_647, 2_147_483_648, -2_147_483_649, 2 ** 53, 1e308, 0.5, -0.0),
  fc.integer(),
  fc.double({ noNaN: true }),
);
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), hostileText, { maxKeys: 3 }),
);

function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const resolved = resolve(schema);
  const wellTyped = wellTypedFor(resolved, depth);
  return fc.oneof({ weight: 3, arbitrary: wellTyped }, { weight: 1, arbitrary: anyJson });
}

function wellTypedFor(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) {
    return fc.constantFrom(...schema.enum);
  }
  switch (schema.type) {
    case "integer":
      return fc.oneof(fc.integer({ min: 0, max: 5 }), hostileNumber);
    case "number":
      return hostileNumber;
    case "boolean":
      return fc.boolean();
    case "array":
      return depth > 2 ? fc.constant([]) : fc.array(valueFor(schema.items, depth + 1), { maxLength: 4 });
    case "object": {
      if (depth > 2 || !schema.properties) {
        return fc.dictionary(fc.string({ maxLength: 8 }), hostileText, { maxKeys: 3 });
      }
      const shape = Object.fromEntries(
        Object.entries(schema.properties).map(([name, property]) => [name, valueFor(property, depth + 1)]),
      );
      return fc.record(shape, { requiredKeys: [] });
    }
    default:
      return fc.oneof(fc.constantFrom("server", "read", "manage_users", "user", "active"), hostileText);
  }
}

/** Text for a path or query parameter: a likely valid value or a hostile one. */
function textFor(schema: Schema | undefined): fc.Arbitrary<string> {
  const resolved = resolve(schema);
  const likely =
    resolved.type === "integer"
      ? fc.integer({ min: 0, max: 5 }).map(String)
      : resolved.type === "boolean"
        ? fc.constantFrom("true", "false", "1")
        : resolved.enum
          ? fc.constantFrom(...resolved.enum.map(String))
          : fc.constantFrom("server", "user", "manage_users", "pg_stat_activity", "1");
  return fc.oneof({ weight: 2, arbitrary: likely }, { weight: 1, arbitrary: hostileText });
}

interface GeneratedRequest {
  method: string;
  template: string;
  url: string;
  body: string | undefined;
  caller: "root" | "plain" | "none";
}

const requestArbitrary: fc.Arbitrary<GeneratedRequest> = fc
  .constantFrom(...operations)
  .chain(({ path, method, operation }) => {
    const parameters = operation.parameters ?? [];
    const pathValues = fc.record(
      Object.fromEntries(
        parameters.filter((p) => p.in === "path").map((p) => [p.name, textFor(p.schema)] as const),
      ),
    );
    const queryValues = fc.record(
      Object.fromEntries(
        parameters.filter((p) => p.in === "query").map((p) => [p.name, textFor(p.schema)] as const),
      ),
      { requiredKeys: [] },
    );
    const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
    const body =
      method === "GET" || method === "DELETE"
        ? fc.constant(undefined)
        : fc.oneof(
            { weight: 4, arbitrary: valueFor(bodySchema).map((value) => JSON.stringify(value) ?? "null") },
            {
              weight: 1,
              arbitrary: fc.constantFrom("{", '{"a":', "[1,2", "\u0000", '{"name":"\\u0000"}', "", "nul"),
            },
          );
    return fc.record({
      method: fc.constant(method),
      template: fc.constant(`${method} ${path}`),
      path: pathValues.map((values) =>
        path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? "1")),
      ),
      query: queryValues.map((values) => new URLSearchParams(values as Record<string, string>).toString()),
      body,
      caller: fc.constantFrom("root", "root", "root", "root", "plain", "none") as fc.Arbitrary<
        GeneratedRequest["caller"]
      >,
    });
  })
  .map(({ method, template, path, query, body, caller }) => ({
    method,
    template,
    url: query ? `${path}?${query}` : path,
    body,
    caller,
  }));

describe("fuzzing every operation", () => {
  let t: TestApp;
  let fake: FakeProvider;
  const tokens: Record<string, string | undefined> = {};

  beforeAll(async () => {
    // LLM operations reach a local fake provider (every capability configured), never the network.
    fake = await startFakeProvider();
    const llm = loadLlmConfig({
      ...fakeProviderEnv(fake, "anthropic"),
      DBMON_LLM_EMBED_PROVIDER: "voyage",
      DBMON_LLM_MULTIMODAL_PROVIDER: "voyage",
      DBMON_LLM_RERANK_PROVIDER: "cohere",
    });
    // Every chat call gets an answer (an unscripted fake answers 500, an upstream failure).
    fake.script(...Array.from({ length: RUNS + 100 }, () => ({ text: "Nothing unusual." })));
    t = await buildTestApp({ config: { llm } });
    // No request of the fuzzer may leave the machine: monitored hosts are loopback only, names
    // resolve to a documentation address (refused), and notifications go nowhere.
    t.services.hostPolicy = createHostPolicy({
      blocked: "0.0.0.0/0,::/0",
      allowed: "127.0.0.1",
      resolve: async (host) => (isIP(host) ? [host] : ["192.0.2.1"]),
    });
    t.services.outboundHosts = createHostPolicy({
      blocked: "0.0.0.0/0,::/0",
      resolve: async () => ["192.0.2.1"],
    });
    // Monitored connections that answer: the test datastore's own server.
    const server = new URL(t.database.url);
    const password = encryptSecret(t.services.secretKey, decodeURIComponent(server.password));
    await t.datastore.sql`
      insert into connections (name, host, port, database_name, username, password_encrypted, owner_username, is_shared)
      select 'fuzz-' || g, ${server.hostname}, ${Number(server.port || 5432)}, ${server.pathname.slice(1)},
        ${decodeURIComponent(server.username)}, ${password}, 'root1', g % 2 = 0
      from generate_series(1, 3) g`;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  /**
   * The fuzzer may demote, disable, delete or log out its own callers: every so often it works with
   * fresh ones.
   */
  let generation = 0;
  async function restoreCallers(): Promise<void> {
    generation += 1;
    await t.datastore.sql`delete from login_throttle`;
    tokens.root = (await createUser(t, `root${generation}`, { superuser: true })).token;
    tokens.plain = (await createUser(t, `plain${generation}`)).token;
  }

  it(
    `answers ${RUNS} generated requests without a server error`,
    async () => {
      const requests = fc.sample(requestArbitrary, { numRuns: RUNS, seed: SEED });
      const failures: string[] = [];
      for (const [index, request] of requests.entries()) {
        if (index % 200 === 0) {
          await restoreCallers();
        }
        const token = tokens[request.caller];
        const res = await t.app.request(request.url, {
          method: request.method,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(request.body !== undefined ? { "content-type": "application/json" } : {}),
          },
          body: request.body,
        });
        const type = res.headers.get("content-type") ?? "";
        if (type.startsWith("text/event-stream")) {
          // A stream that opened (the overview's) never ends by itself: its status is the answer.
          await res.body?.cancel();
          if (res.status >= 500) {
            failures.push(`${res.status} ${request.method} ${request.url.slice(0, 200)} (stream)`);
          }
          continue;
        }
        const text = await res.text();
        const isJson = type.startsWith("application/json");
        if (res.status >= 500 || (text.length > 0 && !isJson)) {
          failures.push(
            `${res.status} ${request.method} ${request.url.slice(0, 200)} ${String(request.body).slice(0, 200)} → ${text.slice(0, 200)}`,
          );
        }
      }
      process.stdout.write(`fuzz: ${requests.length} requests, ${failures.length} server errors\n`);
      expect(failures.slice(0, 20)).toEqual([]);
    },
    60_000 + RUNS * 100,
  );

  it("keeps a session usable after the run", async () => {
    await restoreCallers();
    const res = await requestJson(t.app, "/api/v1/user/info", { token: tokens.root });
    expect(res.status).toBe(200);
  });
});
