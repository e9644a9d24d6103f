import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { encryptSecret } from "@dbmon/datastore";
import { loadLlmConfig } from "@dbmon/llm";
import { type FakeProvider, fakeProviderEnv, startFakeProvider } from "@dbmon/llm/testing";
import { createHostPolicy } from "@dbmon/monitoring";
import fc from "fast-check";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RequestAccess } from "../src/auth/access.js";
import { MAX_BODY_BYTES } from "../src/http/middleware.js";
import {
  type Known,
  malformedEnvelope,
  strangeToolNames,
  type ToolDescriptor,
  toJsonText,
  toolArguments,
  toolsCall,
} from "./fuzz-mcp.js";
import {
  catalogFingerprint,
  changedParts,
  createMonitoredDatabase,
  createSentinel,
  type MonitoredDatabase,
  writeWitness,
} from "./fuzz-monitored.js";
import { type FuzzSql, fuzzSql, sqlText, writes } from "./fuzz-sql.js";
import { buildTestApp, createUser, requestJson, type TestApp } from "./support.js";

/**
 * Requests generated from the OpenAPI document for every operation, valid and invalid alike (huge
 * and negative numbers, NUL characters, long strings, wrong types, broken JSON); MCP tool calls on
 * /mcp/v1 and the REST bridge for every tool, with arguments from its input schema; malformed
 * JSON-RPC envelopes; and SQL from a grammar of tricky forms (fuzz-sql.ts) through the query
 * endpoint and every MCP SQL tool, sent by callers that hold only read access.
 *
 * Every answer must be a JSON client error or success, never a 5xx; no JSON-RPC internal error
 * (-32603) and no answer that shows a stack trace; and nothing may be written: the monitored
 * database's sentinel and catalogs, and the datastore's, are compared after every request that
 * could write and fingerprinted before and after the run. CI runs a few hundred requests; `pnpm
 * fuzz` runs FUZZ_RUNS (20,000) and prints "fuzz: N requests, N server errors" with the seed
 * (FUZZ_SEED) that reproduces the run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
/** The monitored connection SQL goes to: an id the OpenAPI requests (0 to 5, edge values) never name. */
const MONITORED_ID = 4242;
/** Callers are made anew every this many requests: the fuzzer may demote, disable or delete them. */
const GENERATION = 400;
/** How long a write found is given to finish its aftermath before the sentinel is made anew. */
const WRITE_SETTLE_MS = 500;
/** An answer slower than this is reported (a statement that hangs until the 30 s deadline). */
const SLOW_MS = 5_000;

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

/**
 * Who sends a request: a superuser's session, a user without rights, nobody, and the two callers
 * SQL is sent by, each holding read access only to the monitored connection: a user granted read on
 * every connection and every MCP privilege, and a superuser's token scoped to read on it.
 */
type Caller = "root" | "plain" | "none" | "reader" | "scoped";

interface FuzzRequest {
  kind: "rest" | "mcp" | "bridge" | "sql";
  /** What was called: the operation, or the tool and route. */
  label: string;
  method: string;
  url: string;
  body: string | undefined;
  headers?: Record<string, string>;
  caller: Caller;
  /** Where a write would land if one got through: compared after the request. */
  targets: ("monitored" | "datastore")[];
}

const restArbitrary: fc.Arbitrary<FuzzRequest> = fc
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
      caller: fc.constantFrom<Caller>("root", "root", "root", "root", "plain", "none"),
    });
  })
  .map(({ method, template, path, query, body, caller }) => ({
    kind: "rest" as const,
    label: template,
    method,
    url: query ? `${path}?${query}` : path,
    body,
    caller,
    targets: [],
  }));

const MCP_PATH = "/mcp/v1";
const BRIDGE_PATH = "/api/v1/mcp/tools/call";
const QUERY_PATH = `/api/v1/connections/${MONITORED_ID}/query`;
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** Headers an MCP client may send besides the usual ones, right and wrong. */
const mcpHeaders = fc.oneof(
  { weight: 8, arbitrary: fc.constant(MCP_HEADERS) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<Record<string, string>>(
        { "mcp-protocol-version": "2025-06-18" },
        { "mcp-protocol-version": "2024-11-05" },
        { "mcp-protocol-version": "1900-01-01" },
        { "mcp-protocol-version": "garbage" },
        { "mcp-session-id": "fuzz-session" },
        { accept: "text/html" },
        { accept: "" },
        { "content-type": "text/plain" },
        { "content-type": "application/json; charset=latin1" },
      )
      .map((extra) => ({ ...MCP_HEADERS, ...extra })),
  },
);

/** A tool call over either transport. */
function toolCallRequest(
  transport: "mcp" | "bridge",
  caller: Caller,
  name: string,
  args: unknown,
  targets: FuzzRequest["targets"],
): fc.Arbitrary<FuzzRequest> {
  if (transport === "bridge") {
    return fc.boolean().map((omitArguments) => ({
      kind: "bridge",
      label: `bridge ${name}`,
      method: "POST",
      url: BRIDGE_PATH,
      body: toJsonText(omitArguments ? { name } : { name, arguments: args }),
      caller,
      targets,
    }));
  }
  return fc.tuple(toolsCall(name, args), mcpHeaders).map(([envelope, headers]) => ({
    kind: "mcp",
    label: `mcp tools/call ${name}`,
    method: "POST",
    url: MCP_PATH,
    body: toJsonText(envelope),
    headers,
    caller,
    targets,
  }));
}

/** The tools that run SQL on a connection: where a read-only caller's call could write. */
const SQL_ON_CONNECTION = new Set([
  "query_database",
  "get_schema_info",
  "execute_explain",
  "count_rows",
  "test_query",
  "similarity_search",
]);

/** Tool calls for every tool of the catalogue, with arguments from its input schema. */
function mcpArbitrary(
  tools: readonly ToolDescriptor[],
  known: Record<Caller, Known>,
): fc.Arbitrary<FuzzRequest> {
  const tool = fc.oneof(
    { weight: 30, arbitrary: fc.constantFrom(...tools) },
    { weight: 1, arbitrary: strangeToolNames.map((name): ToolDescriptor => ({ name, inputSchema: {} })) },
  );
  return fc
    .tuple(
      fc.constantFrom<Caller>(
        "root",
        "root",
        "root",
        "reader",
        "reader",
        "reader",
        "scoped",
        "plain",
        "none",
      ),
      tool,
      fc.constantFrom<"mcp" | "bridge">("mcp", "bridge"),
    )
    .chain(([caller, descriptor, transport]) =>
      toolArguments(descriptor, known[caller]).chain((args) =>
        toolCallRequest(transport, caller, descriptor.name, args, [
          ...((caller === "reader" || caller === "scoped") && SQL_ON_CONNECTION.has(descriptor.name)
            ? (["monitored"] as const)
            : []),
          ...(descriptor.name === "query_datastore" ? (["datastore"] as const) : []),
        ]),
      ),
    );
}

/** JSON-RPC envelopes that are wrong in every part, and the other methods. */
function envelopeArbitrary(tools: readonly ToolDescriptor[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(malformedEnvelope(tools), mcpHeaders, fc.constantFrom<Caller>("root", "reader", "plain", "none"))
    .map(([body, headers, caller]) => ({
      kind: "mcp",
      label: "mcp envelope",
      method: "POST",
      url: MCP_PATH,
      body,
      headers,
      caller,
      targets: [],
    }));
}

/** Where generated SQL goes: the query endpoint and every MCP tool that takes SQL. */
type SqlRoute =
  | "query endpoint"
  | "query_database"
  | "test_query"
  | "execute_explain"
  | "count_rows where"
  | "count_rows table"
  | "query_datastore";

interface SqlChoice {
  sql: FuzzSql;
  route: SqlRoute;
  transport: "mcp" | "bridge";
  caller: Caller;
  confirmed: boolean;
  analyze: boolean;
  json: boolean;
  /** count_rows table: the SQL is the schema's name too. */
  schemaToo: boolean;
  /** Leave connection_id out: the caller's selected connection (the monitored one) is used. */
  selected: boolean;
}

function sqlToolArguments(choice: SqlChoice, text: string): Record<string, unknown> {
  const connection = choice.selected ? {} : { connection_id: MONITORED_ID };
  switch (choice.route) {
    case "query_database":
      return { query: text, confirmed: choice.confirmed, ...connection };
    case "test_query":
      return { query: text, ...connection };
    case "execute_explain":
      return { query: text, analyze: choice.analyze, format: choice.json ? "json" : "text", ...connection };
    case "count_rows where":
      return { table: "fuzz_sentinel", where: text, ...connection };
    case "count_rows table":
      return { table: text, schema: choice.schemaToo ? text : "public", ...connection };
    default:
      return { query: text };
  }
}

function sqlRequest(choice: SqlChoice): FuzzRequest {
  const targets: FuzzRequest["targets"] = [choice.route === "query_datastore" ? "datastore" : "monitored"];
  const tool = choice.route.split(" ")[0] as string;
  const bodyOf =
    choice.route === "query endpoint"
      ? (text: string) => JSON.stringify({ query: text, ...(choice.confirmed ? { confirmed: true } : {}) })
      : choice.transport === "bridge"
        ? (text: string) => JSON.stringify({ name: tool, arguments: sqlToolArguments(choice, text) })
        : (text: string) =>
            JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: tool, arguments: sqlToolArguments(choice, text) },
            });
  const body = bodyOf(sqlText(choice.sql, MAX_BODY_BYTES, bodyOf));
  const common = { method: "POST", body, caller: choice.caller, targets };
  if (choice.route === "query endpoint") {
    return { ...common, kind: "rest", label: `sql ${choice.route}`, url: QUERY_PATH };
  }
  return choice.transport === "bridge"
    ? { ...common, kind: "bridge", label: `sql bridge ${choice.route}`, url: BRIDGE_PATH }
    : { ...common, kind: "mcp", label: `sql mcp ${choice.route}`, url: MCP_PATH, headers: MCP_HEADERS };
}

const sqlArbitrary: fc.Arbitrary<FuzzRequest> = fc
  .record({
    sql: fuzzSql,
    route: fc.oneof(
      { weight: 3, arbitrary: fc.constant<SqlRoute>("query endpoint") },
      { weight: 3, arbitrary: fc.constant<SqlRoute>("query_database") },
      { weight: 2, arbitrary: fc.constant<SqlRoute>("test_query") },
      { weight: 2, arbitrary: fc.constant<SqlRoute>("execute_explain") },
      { weight: 1, arbitrary: fc.constant<SqlRoute>("count_rows where") },
      { weight: 1, arbitrary: fc.constant<SqlRoute>("count_rows table") },
      { weight: 2, arbitrary: fc.constant<SqlRoute>("query_datastore") },
    ),
    transport: fc.constantFrom<"mcp" | "bridge">("mcp", "bridge"),
    caller: fc.constantFrom<Caller>("reader", "reader", "reader", "scoped"),
    confirmed: fc.boolean(),
    analyze: fc.boolean(),
    json: fc.boolean(),
    schemaToo: fc.boolean(),
    selected: fc.boolean(),
  })
  // query_datastore is for callers from whom no connection is hidden: the scoped token is refused.
  .map((choice) => sqlRequest(choice.route === "query_datastore" ? { ...choice, caller: "reader" } : choice));

/** What no answer may show: a stack trace, a source location, a JavaScript engine error. */
const INTERNALS =
  /\n\s+at \S|\bat (?:async )?\S+ \((?:file:|node:|\/)|node:internal|\.[cm]?[jt]s:\d+:\d+|\b(?:TypeError|ReferenceError|RangeError)\b|Cannot read properties|is not a function|is not iterable|Maximum call stack/;

function stringsIn(value: unknown): string[] {
  if (typeof value === "string") {
    return [value];
  }
  if (value !== null && typeof value === "object") {
    return Object.values(value).flatMap(stringsIn);
  }
  return [];
}

/** What is wrong with an answer, or undefined. */
function problemOf(request: FuzzRequest, status: number, type: string, text: string): string | undefined {
  if (status >= 500) {
    return `${status}`;
  }
  if (text.length === 0) {
    return undefined;
  }
  if (!type.startsWith("application/json")) {
    return `${status}, not JSON (${type})`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status}, unparsable JSON`;
  }
  if (stringsIn(body).some((value) => INTERNALS.test(value))) {
    return `${status}, shows internals`;
  }
  if (request.kind === "mcp") {
    const internal = [body]
      .flat()
      .some((message) => (message as { error?: { code?: unknown } } | null)?.error?.code === -32603);
    if (internal) {
      return `${status}, JSON-RPC internal error -32603`;
    }
  }
  return undefined;
}

function clip(value: string | undefined, length: number): string {
  if (value === undefined) {
    return "(no body)";
  }
  const shown = JSON.stringify(value.slice(0, length));
  return value.length > length ? `${shown}… (${value.length} chars)` : shown;
}

describe("fuzzing every operation, MCP tool and SQL path", () => {
  let t: TestApp;
  let fake: FakeProvider;
  let monitored: MonitoredDatabase;
  let datastoreSql: postgres.Sql;
  const tokens: Partial<Record<Caller, string>> = {};
  const fingerprints: Record<"monitored" | "datastore", Record<string, string>> = {
    monitored: {},
    datastore: {},
  };

  const witness = (target: "monitored" | "datastore") =>
    target === "monitored" ? writeWitness(monitored.inspector, monitored.role) : writeWitness(datastoreSql);
  const restoreSentinel = (target: "monitored" | "datastore") =>
    target === "monitored"
      ? createSentinel(monitored.inspector, monitored.role)
      : createSentinel(datastoreSql);
  const fingerprint = (target: "monitored" | "datastore") =>
    target === "monitored"
      ? catalogFingerprint(monitored.inspector, monitored.role)
      : catalogFingerprint(datastoreSql);

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
    datastoreSql = t.datastore.sql;
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
    // Where SQL goes: a database of its own whose role owns the sentinel (so a write that got past
    // the read-only checks would succeed and show), and the datastore, with a sentinel of its own.
    monitored = await createMonitoredDatabase(t.database.serverUrl);
    await createSentinel(datastoreSql);
    fingerprints.monitored = await fingerprint("monitored");
    fingerprints.datastore = await fingerprint("datastore");
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    await monitored?.drop();
  });

  /** The connection SQL goes to, as it was registered: owned by nobody the fuzzer calls as, not shared. */
  async function restoreMonitoredConnection(): Promise<void> {
    const server = new URL(t.database.url);
    const password = encryptSecret(t.services.secretKey, monitored.password);
    await t.datastore.sql`
      insert into connections (id, name, host, port, database_name, username, password_encrypted,
                               owner_username, is_shared, is_monitored)
      overriding system value
      values (${MONITORED_ID}, 'fuzz-monitored', ${server.hostname}, ${Number(server.port || 5432)},
              ${monitored.name}, ${monitored.role}, ${password}, 'fuzz-owner', false, false)
      on conflict (id) do update set name = excluded.name, host = excluded.host, hostaddr = null,
        port = excluded.port, database_name = excluded.database_name, username = excluded.username,
        password_encrypted = excluded.password_encrypted, owner_username = excluded.owner_username,
        owner_token = null, is_shared = false, is_local = false, sslmode = 'prefer'`;
  }

  async function asRoot(path: string, method: string, body: unknown): Promise<unknown> {
    const res = await requestJson(t.app, path, { method, token: tokens.root, body });
    const text = await res.text();
    if (res.status >= 300) {
      throw new Error(`${method} ${path} failed: ${res.status} ${text}`);
    }
    return text ? JSON.parse(text) : undefined;
  }

  /**
   * The fuzzer may demote, disable, delete or log out its own callers, or widen the SQL callers'
   * rights: every so often, and whenever a SQL caller could write, it works with fresh ones.
   */
  let generation = 0;
  async function restoreCallers(): Promise<void> {
    generation += 1;
    await t.datastore.sql`delete from login_throttle`;
    await restoreMonitoredConnection();
    const root = await createUser(t, `root${generation}`, { superuser: true });
    tokens.root = root.token;
    tokens.plain = (await createUser(t, `plain${generation}`)).token;
    const reader = await createUser(t, `reader${generation}`);
    tokens.reader = reader.token;
    const group = await t.services.auth.groups.create(`fuzz-readers-${generation}`, "");
    await t.services.auth.groups.addMember(group.id, { userId: reader.id });
    await asRoot(`/api/v1/rbac/groups/${group.id}/privileges/mcp`, "PUT", { privileges: ["*"] });
    await asRoot(`/api/v1/rbac/groups/${group.id}/privileges/connections`, "PUT", {
      connections: [{ connection_id: 0, access_level: "read" }],
    });
    const scoped = (await asRoot("/api/v1/rbac/tokens", "POST", {
      owner_username: root.username,
      annotation: "fuzz: read on the monitored connection",
    })) as { id: number; token: string };
    await asRoot(`/api/v1/rbac/tokens/${scoped.id}/scope`, "PUT", {
      mcp_privileges: ["*"],
      connections: [{ connection_id: MONITORED_ID, access_level: "read" }],
    });
    tokens.scoped = scoped.token;
    for (const caller of ["reader", "scoped"] as const) {
      await requestJson(t.app, "/api/v1/connections/current", {
        method: "POST",
        token: tokens[caller],
        body: { connection_id: MONITORED_ID },
      });
    }
  }

  /** Whether the caller could write to the monitored connection now (then a write is no finding). */
  async function mayWrite(caller: Caller): Promise<boolean> {
    const token = tokens[caller];
    if (!token) {
      return false;
    }
    const access = new RequestAccess(t.services.auth, { kind: "token", token, source: "header" });
    try {
      return (await access.isSuperuser()) || (await access.connectionLevel(MONITORED_ID)) === "read_write";
    } catch {
      // A caller that no longer authenticates writes nothing.
      return false;
    }
  }

  /** Sends a request as its caller; the answer, what is wrong with it, and how long it took. */
  async function send(
    request: FuzzRequest,
  ): Promise<{ status: number; text: string; problem: string | undefined; elapsedMs: number }> {
    const token = tokens[request.caller];
    const started = performance.now();
    const res = await t.app.request(request.url, {
      method: request.method,
      headers: {
        ...(request.body !== undefined ? { "content-type": "application/json" } : {}),
        ...request.headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: request.body,
    });
    const type = res.headers.get("content-type") ?? "";
    if (type.startsWith("text/event-stream")) {
      // A stream that opened (the overview's) never ends by itself: its status is the answer.
      await res.body?.cancel();
      const problem = res.status >= 500 ? `${res.status} (stream)` : undefined;
      return { status: res.status, text: "", problem, elapsedMs: performance.now() - started };
    }
    const text = await res.text();
    const problem = problemOf(request, res.status, type, text);
    return { status: res.status, text, problem, elapsedMs: performance.now() - started };
  }

  it(
    `answers ${RUNS} generated requests without a server error, and writes nothing`,
    async () => {
      await restoreCallers();
      const listed = (await asRoot("/api/v1/mcp/tools", "GET", undefined)) as { tools: ToolDescriptor[] };
      expect(listed.tools.length).toBeGreaterThan(20);
      const everyone: Known = {
        connectionIds: [MONITORED_ID, 1, 2, 3],
        databaseNames: [monitored.name, t.database.name],
      };
      // The superuser's calls stay off the monitored connection, where it may write.
      const known: Record<Caller, Known> = {
        root: { ...everyone, connectionIds: [1, 2, 3] },
        plain: everyone,
        none: everyone,
        reader: everyone,
        scoped: everyone,
      };
      const requestArbitrary = fc.oneof(
        { weight: 10, arbitrary: restArbitrary },
        { weight: 5, arbitrary: mcpArbitrary(listed.tools, known) },
        { weight: 1, arbitrary: envelopeArbitrary(listed.tools) },
        { weight: 6, arbitrary: sqlArbitrary },
      );
      const requests = fc.sample(requestArbitrary, { numRuns: RUNS, seed: SEED });
      const baseline = { monitored: await witness("monitored"), datastore: await witness("datastore") };
      const failures: string[] = [];
      const slow: string[] = [];
      const sent: Record<string, number> = {};
      let writes = 0;
      let rightsMayHaveChanged = true;
      for (const [index, request] of requests.entries()) {
        const readOnlyCaller = request.caller === "reader" || request.caller === "scoped";
        // Only a change to users, groups or tokens since the last check can have widened the rights
        // of the read-only callers; then they are made anew, and a write is no finding.
        if (readOnlyCaller && rightsMayHaveChanged) {
          rightsMayHaveChanged = false;
          if (await mayWrite(request.caller)) {
            await restoreCallers();
          }
        }
        if (index % GENERATION === 0) {
          await restoreCallers();
        }
        const answer = await send(request);
        const family = request.label.startsWith("sql ") ? "sql" : request.kind;
        sent[family] = (sent[family] ?? 0) + 1;
        rightsMayHaveChanged ||=
          request.url.startsWith("/api/v1/rbac/") && request.method !== "GET" && answer.status < 300;
        const described = `#${index} ${request.label} as ${request.caller}: ${request.method} ${request.url.slice(0, 200)} ${clip(request.body, 600)}`;
        if (answer.problem) {
          failures.push(`${answer.problem}: ${described} → ${clip(answer.text, 400)}`);
        }
        if (answer.elapsedMs > SLOW_MS) {
          slow.push(`${Math.round(answer.elapsedMs)} ms: ${described}`);
        }
        for (const target of request.targets) {
          const changed = changedParts(baseline[target], await witness(target));
          if (changed.length > 0) {
            writes += 1;
            failures.push(
              `write on the ${target} database (${changed.join(", ")}): ${described} → ${answer.status} ${clip(answer.text, 400)}`,
            );
            // A write may leave work that finishes by itself (a session's temporary objects are
            // dropped when it ends); then the sentinel is made anew, so later writes show too.
            await new Promise((settled) => setTimeout(settled, WRITE_SETTLE_MS));
            await restoreSentinel(target);
            baseline[target] = await witness(target);
          }
        }
      }
      const mix = Object.entries(sent).map(([family, count]) => `${family} ${count}`);
      process.stdout.write(
        `fuzz: ${requests.length} requests, ${failures.length} server errors (${writes} writes; seed ${SEED}; ${mix.join(", ")})\n`,
      );
      for (const line of slow) {
        process.stdout.write(`fuzz: slow answer, ${line}\n`);
      }
      if (failures.length > 0) {
        process.stdout.write(
          `fuzz: reproduce with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} pnpm fuzz\n${failures.map((line) => `  ${line}`).join("\n")}\n`,
        );
      }
      expect(failures.slice(0, 20)).toEqual([]);
    },
    60_000 + RUNS * 100,
  );

  it("leaves every catalog of the monitored database and the datastore as it was", async () => {
    for (const target of ["monitored", "datastore"] as const) {
      expect({ target, changed: changedParts(fingerprints[target], await fingerprint(target)) }).toEqual({
        target,
        changed: [],
      });
    }
  });

  it("keeps a session usable after the run", async () => {
    await restoreCallers();
    const res = await requestJson(t.app, "/api/v1/user/info", { token: tokens.root });
    expect(res.status).toBe(200);
  });
});

describe("the fuzzer's write witness", () => {
  class RolledBack extends Error {
    constructor(readonly changed: string[]) {
      super("rolled back");
    }
  }

  it("sees every write the SQL grammar attempts, when it runs", async () => {
    const database = await createMonitoredDatabase(inject("testServerUrl"));
    try {
      const unseen: string[] = [];
      for (const write of writes) {
        // Each write runs in a transaction that is rolled back, so each finds the sentinel intact.
        const changed = await database.inspector
          .begin(async (tx) => {
            const before = await writeWitness(tx, database.role);
            await tx.unsafe(write);
            throw new RolledBack(changedParts(before, await writeWitness(tx, database.role)));
          })
          .catch((error: unknown) =>
            error instanceof RolledBack ? error.changed : `${error instanceof Error ? error.message : error}`,
          );
        if (typeof changed === "string" || changed.length === 0) {
          unseen.push(`${write}: ${changed || "no change seen"}`);
        }
      }
      expect(unseen).toEqual([]);
    } finally {
      await database.drop();
    }
  });
});
