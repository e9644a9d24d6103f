// Writes src/generated/{types,endpoints,resources}.ts from the contract's OpenAPI document: plain
// TypeScript declarations of every schema and operation (so the published types import nothing of
// Zod, Hono or the contract), one endpoint (route and parameter names) per operation, and the
// resource methods, namespaced by tag and path. CI rebuilds and fails when the committed copy differs.
//
// The emitter is written here rather than taken from json-schema-to-typescript or openapi-typescript:
// the client needs names per operation (`ListAlertsParams`), its own parameter spellings, arrays for
// comma lists and checked limits, which those tools do not give without as much code around them.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { allOperations, buildOpenApiDocument, pagingOf, tags } from "@dbmon/contract";

type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  description?: string;
  default?: unknown;
  minimum?: number;
  format?: string;
  /** A query list the wire carries comma-separated: the schema of its items. */
  "x-dbmon-comma-list"?: Schema;
};
type Parameter = {
  name: string;
  in: "path" | "query";
  required?: boolean;
  description?: string;
  schema: Schema;
};
type Content = { content?: Record<string, { schema?: Schema }> };
type OperationObject = {
  operationId: string;
  summary?: string;
  description?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: Content & { required?: boolean };
  responses: Record<string, Content>;
  /** Query parameters of which at least one must be given (the contract's `oneOfRequired`). */
  "x-dbmon-one-of-required"?: string[][];
};

const document = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema> };
};

/** Component names that would shadow a global type inside the generated module. */
const typeNames: Record<string, string> = { Error: "ErrorBody" };
/** Resource groups whose tag key is not the name we want on the client. */
const groupNames: Record<string, string> = { authentication: "auth" };
/** Tags whose paths sit under other resources (`/connections/{id}/health`): their methods stay flat. */
const flatGroups = new Set(["activity", "health"]);
/** Names the rule would make awkward. */
const methodNames: Record<string, string> = {
  streamLLMChat: "chatStream",
  chatWithLLM: "chat",
  deleteAllConversations: "deleteAll",
  mcpJsonRpc: "jsonRpc",
  listMCPPrivileges: "listMCP",
};
/** Wire path parameter names spelled otherwise than the client's one spelling of their concept. */
const paramAliases: Record<string, string> = { connId: "connection_id" };

const componentName = (ref: string) => {
  const name = ref.replace("#/components/schemas/", "");
  return typeNames[name] ?? name;
};
const pascal = (id: string) => id[0]?.toUpperCase() + id.slice(1);
const camel = (text: string) => text.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const singular = (word: string) => word.replace(/ies$/, "y").replace(/s$/, "");
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

function jsdoc(lines: string[], indent: string): string {
  const text = lines.join("\n").trim();
  if (!text) {
    return "";
  }
  const escaped = text.replaceAll("*/", "*\\/").split("\n");
  if (escaped.length === 1) {
    return `${indent}/** ${escaped[0]} */\n`;
  }
  return `${indent}/**\n${escaped.map((line) => `${indent} *${line ? ` ${line}` : ""}`).join("\n")}\n${indent} */\n`;
}

function fieldDoc(schema: Schema, description: string | undefined, indent: string): string {
  const lines = [description ?? schema.description ?? ""];
  if (schema.default !== undefined) {
    lines.push(`@default ${JSON.stringify(schema.default)}`);
  }
  return jsdoc(lines.filter(Boolean), indent);
}

/** The TypeScript type of a schema; `input` types arrays as readonly (what a caller passes). */
function typeOf(schema: Schema, indent: string, input: boolean): string {
  const nullable = schema.nullable && !schema.enum?.includes(null) ? " | null" : "";
  return `${baseType(schema, indent, input)}${nullable}`;
}

function baseType(schema: Schema, indent: string, input: boolean): string {
  const listed = schema["x-dbmon-comma-list"];
  if (listed) {
    return baseType({ type: "array", items: listed }, indent, input);
  }
  if (schema.$ref) {
    return componentName(schema.$ref);
  }
  if (schema.enum) {
    return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  }
  const union = schema.oneOf ?? schema.anyOf;
  if (union) {
    return union.map((part) => wrap(typeOf(part, indent, input))).join(" | ");
  }
  if (schema.allOf) {
    return schema.allOf.map((part) => wrap(typeOf(part, indent, input))).join(" & ");
  }
  switch (schema.type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array": {
      const item = wrap(schema.items ? typeOf(schema.items, indent, input) : "unknown");
      return input ? `readonly ${item}[]` : `${item}[]`;
    }
    case "object":
      return objectType(schema, indent, input);
    default:
      return schema.properties ? objectType(schema, indent, input) : "unknown";
  }
}

function wrap(type: string): string {
  return /[|&]/.test(type) && !type.startsWith("{") ? `(${type})` : type;
}

function objectType(schema: Schema, indent: string, input: boolean): string {
  const properties = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  if (properties.length === 0) {
    if (extra === undefined || extra === true) {
      return "Record<string, unknown>";
    }
    return extra === false ? "Record<string, never>" : `Record<string, ${typeOf(extra, indent, input)}>`;
  }
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const fields = properties.map(
    ([name, field]) =>
      `${fieldDoc(field, undefined, inner)}${inner}${key(name)}${required.has(name) ? "" : "?"}: ${typeOf(field, inner, input)};`,
  );
  if (extra && extra !== true) {
    fields.push(`${inner}[key: string]: ${typeOf(extra, inner, input)} | undefined;`);
  }
  return `{\n${fields.join("\n")}\n${indent}}`;
}

/** A stream's events as `SseEvent`s: the contract writes each as `{ event, data }` in a `oneOf`. */
function eventType(schema: Schema): string | undefined {
  const events = schema.oneOf?.map((part) => {
    const name = part.properties?.event?.enum?.[0];
    const data = part.properties?.data;
    return typeof name === "string" && data ? `SseEvent<"${name}", ${typeOf(data, "", false)}>` : undefined;
  });
  return events?.every(Boolean) ? events.join(" | ") : undefined;
}

const streamComponents = new Set<string>();
for (const methods of Object.values(document.paths)) {
  for (const operation of Object.values(methods)) {
    const ref = operation.responses[200]?.content?.["text/event-stream"]?.schema?.$ref;
    if (ref) {
      streamComponents.add(ref.replace("#/components/schemas/", ""));
    }
  }
}

const declarations: string[] = [];
for (const [name, schema] of Object.entries(document.components.schemas)) {
  const doc = jsdoc([schema.description ?? ""], "");
  const events = streamComponents.has(name) ? eventType(schema) : undefined;
  const type = events ?? typeOf(schema, "", false);
  declarations.push(
    !events && schema.type === "object" && schema.properties && !schema.nullable
      ? `${doc}export interface ${componentName(name)} ${type}`
      : `${doc}export type ${componentName(name)} = ${type};`,
  );
}

const tagKeys = new Map(Object.entries(tags).map(([tagKey, tag]) => [tag.name as string, tagKey]));
const pagingById = new Map(
  allOperations.map((operation) => [
    operation.operationId as string,
    pagingOf((operation.request?.query as { shape?: Record<string, unknown> } | undefined)?.shape?.limit),
  ]),
);

/** The client's name of a path parameter: `{id}` is named by the collection before it. */
function clientParamName(name: string, segmentBefore: string): string {
  if (name === "id") {
    return `${singular(segmentBefore.split("-").at(-1) ?? "")}_id`;
  }
  return paramAliases[name] ?? snake(name);
}

/** Where a method sits: its tag's group, then a sub-resource from the path (`rbac.users`, `alerts.rules`). */
function namespaceOf(path: string, tagKey: string): string[] {
  const group = groupNames[tagKey] ?? tagKey;
  if (flatGroups.has(tagKey)) {
    return [group];
  }
  const segments = path.replace(/^\/api\/v1\//, "").split("/");
  const first = (segments[0] === "rbac" ? segments[1] : segments[0]) ?? "";
  if (camel(first) === group || camel(first) === tagKey || !(first.includes("-") || segments[0] === "rbac")) {
    return [group];
  }
  return [group, camel(first.split("-").at(-1) ?? first)];
}

/**
 * The method's name: the operationId without the nouns its namespace already says
 * (`listAlertRules` in `alerts.rules` is `list`), keeping those the path names below the resource
 * (`listGroupClusters` in `clusters.groups` is `listClusters`).
 */
function methodName(operationId: string, namespace: string[], path: string): string {
  if (methodNames[operationId]) {
    return methodNames[operationId];
  }
  const [resource, ...below] = path.replace(/^\/api\/v1\//, "").split(/\/\{[^}]+\}/);
  const nested = new Set(below.join("/").split(/[/-]/).filter(Boolean).map(singular));
  const words = new Set(
    [...namespace, ...(namespace.length > 1 ? (resource?.split("/")[0] ?? "").split("-") : [])]
      .flatMap((word) => word.split(/(?=[A-Z])/))
      .map((word) => singular(word.toLowerCase()))
      .filter((word) => word && !nested.has(word)),
  );
  const verb = /^[a-z]+/.exec(operationId)?.[0] ?? "";
  let rest = operationId.slice(verb.length);
  for (;;) {
    // A capitalized word or an acronym (`LLM` of `listLLMProviders`), with its plural `s`.
    const word = /^(?:[A-Z]+(?![a-z])|[A-Z][a-z]*)s?/.exec(rest)?.[0];
    if (!word || !words.has(singular(word.toLowerCase()))) {
      break;
    }
    rest = rest.slice(word.length);
  }
  return verb + rest;
}

type Tree = { methods: string[]; table: string[]; names: Set<string>; children: Map<string, Tree> };
const newTree = (): Tree => ({ methods: [], table: [], names: new Set(), children: new Map() });
const root = newTree();
const endpoints: string[] = [];
const operationTypes: string[] = [];

for (const [wirePath, methods] of Object.entries(document.paths)) {
  for (const [method, operation] of Object.entries(methods)) {
    const id = operation.operationId;
    const type = pascal(id);
    const segments = wirePath.split("/");
    const rename = new Map<string, string>();
    for (const [index, segment] of segments.entries()) {
      const wire = /^\{(.+)\}$/.exec(segment)?.[1];
      if (wire) {
        rename.set(wire, clientParamName(wire, segments[index - 1] ?? ""));
      }
    }
    const path = wirePath.replace(/\{([^}]+)\}/g, (_, wire: string) => `{${rename.get(wire)}}`);
    const parameters = operation.parameters ?? [];
    const pathParams = parameters.filter((p) => p.in === "path").map((p) => rename.get(p.name) ?? p.name);
    const queryParams = parameters.filter((p) => p.in === "query").map((p) => p.name);
    const nonNegative = parameters
      .filter((p) => p.in === "query" && (p.schema.minimum ?? -1) >= 0)
      .map((p) => p.name);

    const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
    const bodyOptional = operation.requestBody?.required === false;
    const bodyObject = bodySchema?.$ref
      ? document.components.schemas[bodySchema.$ref.replace("#/components/schemas/", "")]
      : bodySchema;
    const bodyFields = bodyObject?.type === "object" ? Object.keys(bodyObject.properties ?? {}) : undefined;
    const flat =
      !bodySchema ||
      (bodyFields !== undefined &&
        (bodySchema.$ref !== undefined || bodyFields.length > 0) &&
        !bodyFields.some((field) => [...pathParams, ...queryParams].includes(field)));
    const body = !bodySchema ? 0 : flat ? 1 : 2;

    const field = (p: Parameter, required: boolean) => {
      const name = p.in === "path" ? (rename.get(p.name) ?? p.name) : p.name;
      return `${fieldDoc(p.schema, p.description, "  ")}  ${key(name)}${required ? "" : "?"}: ${typeOf(p.schema, "  ", true)};`;
    };
    // A group of which one must be given is a union: each member requires one of them.
    const oneOf = operation["x-dbmon-one-of-required"] ?? [];
    const grouped = new Set(oneOf.flat());
    const fields = parameters
      .filter((p) => !grouped.has(p.name))
      .map((p) => field(p, p.required === true || p.in === "path"));
    const alternatives = oneOf.map((group) => {
      const members = group.map((wanted) => {
        const lines = group.map((name) => {
          const p = parameters.find((candidate) => candidate.name === name);
          if (!p) {
            throw new Error(`${id}: x-dbmon-one-of-required names ${name}, which it does not take`);
          }
          return field(p, name === wanted);
        });
        return `{\n${lines.join("\n")}\n}`;
      });
      return `(${members.join(" | ")})`;
    });
    if (body === 2 && bodySchema) {
      fields.push(`  body${bodyOptional ? "?" : ""}: ${type}Body;`);
    }
    const hasInput = fields.length > 0 || alternatives.length > 0 || body === 1;
    if (bodySchema) {
      operationTypes.push(`export type ${type}Body = ${typeOf(bodySchema, "", true)};`);
    }
    const bodyBase = body === 1 && bodySchema ? `${type}Body` : undefined;
    const base = bodyBase && bodyOptional ? `Partial<${bodyBase}>` : bodyBase;
    const opDoc = jsdoc(
      [`Parameters of \`${id}\` (\`${method.toUpperCase()} ${path}\`), as its method takes them.`],
      "",
    );
    if (alternatives.length > 0) {
      operationTypes.push(
        `${opDoc}export type ${type}Params = ${[base, `{\n${fields.join("\n")}\n}`, ...alternatives].filter(Boolean).join(" & ")};`,
      );
    } else if (hasInput) {
      if (fields.length === 0 && base) {
        operationTypes.push(`${opDoc}export type ${type}Params = ${base};`);
      } else if (base && bodySchema?.$ref) {
        operationTypes.push(
          `${opDoc}export interface ${type}Params extends ${base} {\n${fields.join("\n")}\n}`,
        );
      } else {
        const own = `{\n${fields.join("\n")}\n}`;
        operationTypes.push(
          base
            ? `${opDoc}export type ${type}Params = ${base} & ${own};`
            : `${opDoc}export interface ${type}Params ${own}`,
        );
      }
    }
    const success = Object.entries(operation.responses).find(([status]) => status.startsWith("2"));
    const streamSchema = success?.[1].content?.["text/event-stream"]?.schema;
    const jsonSchema = success?.[1].content?.["application/json"]?.schema;
    const resultType = streamSchema
      ? typeOf(streamSchema, "", false)
      : jsonSchema
        ? typeOf(jsonSchema, "", false)
        : "undefined";
    operationTypes.push(`export type ${type}${streamSchema ? "Event" : "Result"} = ${resultType};`);
    const params = hasInput ? `T.${type}Params` : "undefined";
    const result = streamSchema ? `T.${type}Event` : `T.${type}Result`;
    endpoints.push(
      `${jsdoc([`${operation.summary ?? id}: \`${method.toUpperCase()} ${wirePath}\``], "")}export const ${id}: Endpoint<${params}, ${result}> = { operationId: "${id}", method: "${method}", path: "${path}", pathParams: ${JSON.stringify(pathParams)}, queryParams: ${JSON.stringify(queryParams)}, body: ${body}${streamSchema ? ", stream: true" : ""} };`,
    );

    const tagKey = tagKeys.get(operation.tags[0] ?? "");
    if (!tagKey) {
      throw new Error(`${id} has no known tag`);
    }
    const namespace = namespaceOf(wirePath, tagKey);
    let tree = root;
    for (const part of namespace) {
      const child = tree.children.get(part) ?? newTree();
      tree.children.set(part, child);
      tree = child;
    }
    const node = tree;
    const add = (name: string) => {
      if (node.names.has(name) || node.children.has(name)) {
        throw new Error(`${namespace.join(".")}.${name} would be defined twice (${id})`);
      }
      node.names.add(name);
    };
    const name = methodName(id, namespace, wirePath);
    add(name);
    const required =
      parameters.some((p) => p.in === "path" || p.required) ||
      oneOf.length > 0 ||
      (body !== 0 && !bodyOptional);
    const input = `params${required ? "" : "?"}`;
    const options = streamSchema ? "StreamOptions" : "CallOptions";
    const returns = streamSchema ? `Promise<EventStream<${result}>>` : `Promise<Result<${result}, S>>`;
    const doc = jsdoc(
      [
        `${operation.summary ?? id} (\`${method.toUpperCase()} ${wirePath}\`)`,
        "",
        operation.description ?? "",
      ],
      "    ",
    );
    const signature = !hasInput
      ? `${name}(options?: ${options}): ${returns};`
      : nonNegative.length > 0
        ? `${name}<const I extends ${params}>(${input}: Checked<I, ${params}, ${nonNegative.map((n) => `"${n}"`).join(" | ")}>, options?: ${options}): ${returns};`
        : `${name}(${input}: ${params}, options?: ${options}): ${returns};`;
    node.methods.push(`${doc}    ${signature}`);
    node.table.push(`${name}: E.${id},`);

    const paging = pagingById.get(id);
    const arrays = Object.entries(
      (jsonSchema?.$ref
        ? document.components.schemas[jsonSchema.$ref.replace("#/components/schemas/", "")]
        : jsonSchema
      )?.properties ?? {},
    ).filter(([, s]) => s.type === "array");
    if (paging && queryParams.includes("offset") && arrays.length === 1) {
      const [items] = arrays[0] as [string, Schema];
      const iterateName = name.replace(/^list/, "iterate");
      add(iterateName);
      const iterateParams = `Omit<${params}, "offset">`;
      node.methods.push(
        `    /** Every item of \`${name}\`, page by page (\`limit\` is the page size: at most ${paging.cap}, the default). */\n    ${iterateName}<const I extends ${iterateParams}>(params?: Checked<I, ${iterateParams}, ${nonNegative
          .filter((n) => n !== "offset")
          .map((n) => `"${n}"`)
          .join(" | ")}>, options?: CallOptions): AsyncIterable<${result}["${items}"][number]>;`,
      );
      node.table.push(`${iterateName}: [E.${id}, "${items}", ${paging.cap}],`);
    }
  }
}

function renderTypes(tree: Tree, indent: string): string {
  const children = [...tree.children.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, child]) => `${indent}${name}: {\n${renderTypes(child, `${indent}  `)}\n${indent}};`);
  const methods = tree.methods.map((method) => method.replace(/^ {4}/gm, indent));
  return [...methods, ...children].join("\n");
}

function renderTable(tree: Tree, indent: string): string {
  const children = [...tree.children.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, child]) => `${indent}${name}: {\n${renderTable(child, `${indent}  `)}\n${indent}},`);
  return [...tree.table.map((line) => `${indent}${line}`), ...children].join("\n");
}

const header = "// Generated by scripts/generate.ts from @dbmon/contract's OpenAPI document: do not edit.\n";
const target = (file: string) => fileURLToPath(new URL(`../src/generated/${file}`, import.meta.url));

writeFileSync(
  target("types.ts"),
  `${header}import type { SseEvent } from "../stream.js";\n\n${[...declarations, ...operationTypes].join("\n\n")}\n`,
);
writeFileSync(
  target("endpoints.ts"),
  `${header}import type { Endpoint } from "../types.js";\nimport type * as T from "./types.js";\n\n${endpoints.join("\n\n")}\n`,
);
writeFileSync(
  target("resources.ts"),
  `${header}import type { CallOptions, Result, ResultStyle } from "../client.js";
import type { EventStream, StreamOptions } from "../stream.js";
import type { Checked, Endpoint } from "../types.js";
import * as E from "./endpoints.js";
import type * as T from "./types.js";

/** Every operation of dbmon, grouped by resource. */
export interface Resources<S extends ResultStyle> {
${renderTypes(root, "  ")}
}

/** Which endpoint each method calls; \`[endpoint, items, page cap]\` for the iterators of paged lists. */
export const resourceTable: ResourceTable = {
${renderTable(root, "  ")}
};

/** A namespace of methods: endpoints, iterators and namespaces below it. */
export interface ResourceTable {
  [name: string]: Endpoint | readonly [Endpoint, string, number] | ResourceTable;
}
`,
);
console.log(
  `wrote ${allOperations.length} endpoints, ${Object.keys(document.components.schemas).length} schemas`,
);
