import fc from "fast-check";

/**
 * MCP traffic for the fuzzer: tool arguments generated from each tool's declared input schema
 * (valid values, boundaries, hostile values, wrong types, extra keys, deep objects) and JSON-RPC
 * envelopes, well-formed and not.
 */

/** The part of JSON Schema that zod writes for the tools' inputs. */
export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
}

export interface ToolDescriptor {
  name: string;
  inputSchema: JsonSchema;
}

/**
 * JSON text written as is into a body: numbers JavaScript cannot hold (2^63, 1e400) and literals
 * that are no JSON at all (NaN).
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify, with RawJson written verbatim. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) {
    return value.text;
  }
  if (Array.isArray(value)) {
    return `[${value.map(toJsonText).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Values that fit the monitored world: connections, probes, tables and resources that exist. */
export interface Known {
  connectionIds: number[];
  databaseNames: string[];
}

/** `{"a":[{"a":[…]}]}`, `depth` levels, as JSON text: deep enough to find recursion without a bound. */
export function deepObject(depth: number): RawJson {
  const openers: string[] = [];
  const closers: string[] = [];
  for (let level = 0; level < depth; level++) {
    openers.push(level % 2 === 0 ? '{"a":' : "[");
    closers.push(level % 2 === 0 ? "}" : "]");
  }
  return new RawJson(`${openers.join("")}"bottom"${closers.reverse().join("")}`);
}

const hugeText = fc.constantFrom("x".repeat(100_001), "é".repeat(20_000), "\u{1F4A5}".repeat(5_000));
const hostileText = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "null",
    "undefined",
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "1e309",
    "-0",
    "0x7fffffff",
    "9223372036854775808",
    "💥",
    "\ud800",
    "\u202e",
    "\ufeff",
    "../../etc/passwd",
    "%00",
    "'; drop table fuzz_sentinel; --",
    '"',
    "__proto__",
    "constructor",
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
);
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, [], {}, [1, "a"], { a: 1 }),
  fc.constantFrom(new RawJson("9223372036854775808"), new RawJson("1e400"), new RawJson("-1e400")),
  fc.constantFrom(deepObject(64), deepObject(3000)),
  hostileText,
);

/** Integers at and beyond every boundary ids and counts have. */
function integerFor(schema: JsonSchema, likely: fc.Arbitrary<number>): fc.Arbitrary<unknown> {
  const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
  const high = schema.maximum ?? 2 ** 31 - 1;
  return fc.oneof(
    { weight: 4, arbitrary: likely },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        low,
        low - 1,
        high,
        high + 1,
        0,
        -1,
        2 ** 31 - 1,
        2 ** 31,
        -(2 ** 31) - 1,
        2 ** 32,
        2 ** 53 - 1,
        2 ** 53,
        2 ** 63,
        0.5,
        1e308,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        new RawJson("9223372036854775807"),
        new RawJson("9223372036854775808"),
        new RawJson("-9223372036854775809"),
        new RawJson("18446744073709551616"),
        new RawJson("1e400"),
        new RawJson("1.0"),
        new RawJson("1E2"),
        new RawJson("-0"),
        new RawJson(`1${"0".repeat(400)}`),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("1", "NaN", "Infinity", "-1", "0x10", "1e3", " 1", "2147483648"),
    },
  );
}

/** Points in time: relative, "now", ISO, and years 0 and 10000 and beyond what Date holds. */
const timeText = fc.constantFrom(
  "now",
  "1h",
  "24h",
  "7d",
  "90m",
  "0s",
  "-1h",
  "999999d",
  "999999w",
  "1000000h",
  "2024-01-01T00:00:00Z",
  "0000-01-01T00:00:00Z",
  "0000-01-01",
  "-000001-01-01T00:00:00Z",
  "10000-01-01T00:00:00Z",
  "+010000-01-01T00:00:00Z",
  "+275760-09-13T00:00:00Z",
  "+275760-09-13T00:00:00.001Z",
  "9999-12-31T23:59:59.999Z",
  "1970-01-01T00:00:00Z",
  "2024-02-30T00:00:00Z",
  "2024-01-01T25:00:00Z",
  "2024-01-01T00:00:00+99:00",
  "2024-01-01T00:00:00.123456789Z",
  "infinity",
  "-infinity",
  "epoch",
  "today",
);

/** Likely values of a string argument, by its name. */
function likelyText(name: string, known: Known): fc.Arbitrary<string> {
  if (/time|start|end/.test(name)) {
    return timeText;
  }
  switch (name) {
    case "probe_name":
    case "metric_name":
      return fc.constantFrom(
        "pg_connectivity",
        "pg_stat_activity",
        "pg_stat_database",
        "pg_connectivity.response_time_ms",
        "pg_stat_activity.count",
        "pg_connectivity.",
        ".response_time_ms",
        "metrics.pg_connectivity",
        'pg_connectivity"; select 1; --',
      );
    case "metrics":
    case "event_types":
      return fc.constantFrom("response_time_ms", "a,b", ",,,", "alert,blackout", " , ", "x".repeat(2000));
    case "uri":
      return fc.constantFrom(
        "pg://system_info",
        "pg://connection_info",
        "pg://",
        "pg://system_info/../connection_info",
        "file:///etc/passwd",
        "http://127.0.0.1/",
      );
    case "table_name":
    case "table":
      return fc.constantFrom("fuzz_sentinel", "public.fuzz_sentinel", "pg_class", 'a"b', "a.b.c", "users");
    case "schema_name":
    case "schema":
      return fc.constantFrom("public", "pg_catalog", "information_schema", "metrics", 'a"b');
    case "database_name":
      return fc.constantFrom(...known.databaseNames, "postgres", "template0", "no_such_database");
    case "query":
    case "where":
      return fc.constantFrom("select 1", "1=1", "true", "id > 3", "select * from fuzz_sentinel");
    default:
      return fc.constantFrom("disk", "notes", "checkpoint tuning", "postgres");
  }
}

/** A value for one argument: mostly of its declared type, sometimes not. */
function valueFor(name: string, schema: JsonSchema, known: Known, depth: number): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: wellTypedFor(name, schema, known, depth) },
    { weight: 1, arbitrary: wrongType },
  );
}

function wellTypedFor(name: string, schema: JsonSchema, known: Known, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) {
    const values = schema.enum.map(String);
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...schema.enum) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(...values.map((v) => v.toUpperCase()), ...values.map((v) => `${v} `), ""),
      },
    );
  }
  switch (schema.type) {
    case "integer":
    case "number": {
      const low = schema.minimum ?? 1;
      const likely = /connection/.test(name)
        ? fc.constantFrom(...known.connectionIds)
        : fc.integer({ min: low, max: Math.min(schema.maximum ?? low + 5, low + 5) });
      return integerFor(
        schema,
        schema.type === "number" ? fc.double({ min: 0, max: 1, noNaN: true }) : likely,
      );
    }
    case "boolean":
      return fc.oneof(
        { weight: 4, arbitrary: fc.boolean() },
        { weight: 1, arbitrary: fc.constantFrom("true", 1) },
      );
    case "array":
      return depth > 2
        ? fc.constant([])
        : fc.array(valueFor(name, schema.items ?? {}, known, depth + 1), {
            maxLength: (schema.maxItems ?? 4) + 1,
          });
    case "object":
      return depth > 2 ? fc.constant({}) : objectFor(schema, known, depth + 1);
    default: {
      const bounds = [schema.maxLength, schema.minLength]
        .filter((length): length is number => length !== undefined)
        .flatMap((length) => [length, length + 1, Math.max(0, length - 1)])
        .map((length) => "a".repeat(length));
      return fc.oneof(
        { weight: 30, arbitrary: likelyText(name, known) },
        { weight: 15, arbitrary: hostileText },
        { weight: 5, arbitrary: bounds.length > 0 ? fc.constantFrom(...bounds) : hugeText },
        { weight: 1, arbitrary: hugeText },
      );
    }
  }
}

/** Written for a required argument left out. */
const MISSING = Symbol("missing");

/** An object of the schema's properties (required ones nearly always), sometimes with more keys. */
function objectFor(schema: JsonSchema, known: Known, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const requiredValues = fc.record(
    Object.fromEntries(
      properties
        .filter(([name]) => required.has(name))
        .map(([name, property]) => [
          name,
          fc.option(valueFor(name, property, known, depth), { freq: 20, nil: MISSING }),
        ]),
    ),
  );
  const optionalValues = fc.record(
    Object.fromEntries(
      properties
        .filter(([name]) => !required.has(name))
        .map(([name, property]) => [name, valueFor(name, property, known, depth)]),
    ),
    { requiredKeys: [] },
  );
  const extraKeys = fc.array(
    fc.tuple(
      fc.constantFrom("__proto__", "constructor", "prototype", "$ref", "extra", "Query", "query "),
      wrongType,
    ),
    { maxLength: 2 },
  );
  return fc
    .tuple(requiredValues, optionalValues, fc.option(extraKeys, { freq: 5, nil: [] }))
    .map(([requiredArgs, optionalArgs, extra]) => {
      const object: Record<string, unknown> = {};
      for (const [key, value] of [
        ...Object.entries(requiredArgs),
        ...Object.entries(optionalArgs),
        ...extra,
      ]) {
        if (value !== MISSING) {
          // An own property, so that "__proto__" is a key in the JSON text, not a prototype.
          Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
        }
      }
      return object;
    });
}

/** Arguments for a tool: usually an object of its schema, sometimes anything at all. */
export function toolArguments(tool: ToolDescriptor, known: Known): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 12, arbitrary: objectFor(tool.inputSchema, known, 0) },
    { weight: 1, arbitrary: wrongType },
  );
}

/** Tool names that are not in the catalogue, or nearly. */
export const strangeToolNames = fc.constantFrom(
  "nope",
  "",
  "query_database ",
  "QUERY_DATABASE",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "query_database\u0000",
  "x".repeat(5000),
);

/** A JSON-RPC request id: the usual ones and those the specification does not allow. */
const requestId: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 1_000_000 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "abc",
      0,
      -1,
      1.5,
      null,
      true,
      {},
      [],
      new RawJson("9223372036854775808"),
      "x".repeat(10_000),
    ),
  },
);

/** A tools/call request of this name and arguments, in a well-formed envelope. */
export function toolsCall(name: unknown, args: unknown): fc.Arbitrary<unknown> {
  const meta = fc.oneof(
    { weight: 9, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>({ progressToken: 1 }, { progressToken: {} }, "x") },
  );
  return fc.tuple(requestId, meta).map(([id, _meta]) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, ...(_meta === undefined ? {} : { _meta }) },
  }));
}

/** Envelopes that are wrong in every part, and other methods than tools/call. */
export function malformedEnvelope(tools: readonly ToolDescriptor[]): fc.Arbitrary<string> {
  const names = fc.constantFrom(...tools.map((tool) => tool.name));
  const method = fc.constantFrom(
    "tools/call",
    "tools/list",
    "initialize",
    "ping",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "notifications/initialized",
    "notifications/cancelled",
    "tools/cal",
    "",
    "TOOLS/CALL",
    "__proto__",
  );
  const params = fc.oneof(
    fc.constantFrom(
      null,
      [],
      "x",
      1,
      {},
      { name: 1 },
      { arguments: { query: "select 1" } },
      { uri: "pg://system_info" },
      { uri: "pg://nope" },
      { name: "nope" },
      { requestId: 1 },
      { level: "debug" },
      { protocolVersion: "1900-01-01", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
    ),
    names.map((name) => ({ name, arguments: [] })),
    names.map((name) => ({ name, arguments: "select 1" })),
    names.map((name) => ({ name, arguments: deepObject(2000) })),
    names.map((name) => ({ name })),
  );
  const envelope = fc.record(
    {
      jsonrpc: fc.constantFrom("2.0", "1.0", 2, null),
      id: requestId,
      method: fc.oneof(method, fc.constantFrom(1, null)),
      params,
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 6, arbitrary: envelope.map(toJsonText) },
    {
      weight: 2,
      arbitrary: fc.array(envelope, { minLength: 0, maxLength: 3 }).map((batch) => toJsonText(batch)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "",
        "{",
        "[",
        "null",
        "1",
        '"x"',
        "[]",
        "{}",
        "[{}]",
        "[1,2]",
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_query","arguments":{"query":NaN}}}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_query","arguments":{"query":"select 1"}},"jsonrpc":"1.0"}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_query","arguments":{"query":"select 1",}}}',
        '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${"[".repeat(5000)}${"]".repeat(5000)}}`,
      ),
    },
  );
}
