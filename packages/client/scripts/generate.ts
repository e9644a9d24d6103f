// Writes src/generated/{endpoints,resources}.ts from the contract: one endpoint (route and
// parameter names, no schemas) per operation, and the resource methods grouped by tag and named
// from the operationId. Types come from the contract with `import type`, so nothing of Zod or of
// the contract reaches the client's run time. CI rebuilds and fails when the committed copy differs.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as contract from "@dbmon/contract";
import { allOperations, type Operation, pagingOf, tags } from "@dbmon/contract";

type Shape = { def?: { type?: string }; shape?: Record<string, Shape> };

/** Resource groups whose tag key is not the name we want on the client. */
const groupNames: Record<string, string> = { authentication: "auth" };
/** Nouns a group's method names drop after the verb, beyond the tag key's singular. */
const extraNouns: Record<string, string[]> = { serverInfo: ["Server"], memories: ["Memory"] };
/** Names the rule would make awkward. */
const methodNames: Record<string, string> = {
  streamLLMChat: "chatStream",
  chatWithLLM: "chat",
  deleteAllConversations: "deleteAll",
};

const exportNames = new Map<unknown, string>();
for (const [name, value] of Object.entries(contract)) {
  exportNames.set(value, name);
}
const tagKeys = new Map(Object.entries(tags).map(([key, tag]) => [tag.name as string, key]));

function methodName(operationId: string, tagKey: string): string {
  if (methodNames[operationId]) {
    return methodNames[operationId];
  }
  const verb = /^[a-z]+/.exec(operationId)?.[0] ?? "";
  const rest = operationId.slice(verb.length);
  const nouns = [tagKey.replace(/s$/, ""), tagKey, ...(extraNouns[tagKey] ?? [])].sort(
    (a, b) => b.length - a.length,
  );
  for (const noun of nouns) {
    if (!rest.toLowerCase().startsWith(noun.toLowerCase())) {
      continue;
    }
    let after = rest.slice(noun.length);
    if (/^s($|[A-Z])/.test(after)) {
      after = after.slice(1);
    }
    if (after === "" || /^[A-Z]/.test(after)) {
      return verb + after;
    }
  }
  return operationId;
}

function jsonSchema(content: unknown): Shape | undefined {
  return (content as { content?: Record<string, { schema?: Shape }> } | undefined)?.content?.[
    "application/json"
  ]?.schema;
}

function keys(schema: unknown): string[] {
  return Object.keys((schema as Shape | undefined)?.shape ?? {});
}

function doc(operation: Operation, indent: string): string {
  const lines = [
    operation.summary ?? "",
    "",
    ...(operation.description ?? "").split("\n"),
    "",
    `\`${operation.method.toUpperCase()} ${operation.path}\``,
  ];
  const body = lines
    .map((line) => `${indent} *${line ? ` ${line.replaceAll("*/", "*\\/")}` : ""}`)
    .join("\n");
  return `${indent}/**\n${body}\n${indent} */`;
}

const endpoints: string[] = [];
const groups = new Map<string, { types: string[]; table: string[]; names: Set<string> }>();

for (const operation of allOperations) {
  const id = operation.operationId as string;
  const exportName = exportNames.get(operation);
  if (!exportName) {
    throw new Error(`${id} is not exported by @dbmon/contract`);
  }
  const op = `typeof C.${exportName}`;
  const request = (operation.request ?? {}) as { params?: unknown; query?: unknown; body?: unknown };
  const pathParams = keys(request.params);
  const queryParams = keys(request.query);
  const bodySchema = jsonSchema(request.body);
  const bodyFields = bodySchema?.def?.type === "object" ? keys(bodySchema) : undefined;
  const flat =
    !bodySchema ||
    (bodyFields !== undefined && !bodyFields.some((k) => [...pathParams, ...queryParams].includes(k)));
  const body = !bodySchema ? 0 : flat ? 1 : 2;
  const success = (operation.responses as Record<string, { content?: Record<string, unknown> }>)[200];
  const stream = Boolean(success?.content?.["text/event-stream"]);
  endpoints.push(
    `${doc(operation, "")}\nexport const ${id}: Endpoint<${op}> = { operationId: "${id}", method: "${operation.method}", path: "${operation.path}", pathParams: ${JSON.stringify(pathParams)}, queryParams: ${JSON.stringify(queryParams)}, body: ${body}${stream ? ", stream: true" : ""} };`,
  );

  const tagKey = tagKeys.get(operation.tags[0] ?? "");
  if (!tagKey) {
    throw new Error(`${id} has no known tag`);
  }
  const groupName = groupNames[tagKey] ?? tagKey;
  const group = groups.get(groupName) ?? { types: [], table: [], names: new Set<string>() };
  groups.set(groupName, group);
  const name = methodName(id, tagKey);
  const add = (method: string) => {
    if (group.names.has(method)) {
      throw new Error(`${groupName}.${method} would be defined twice (${id})`);
    }
    group.names.add(method);
  };
  add(name);
  const input = flat ? `FlatInput<${op}>` : `WrappedInput<${op}>`;
  if (stream) {
    group.types.push(
      `${doc(operation, "    ")}\n    ${name}(...args: Args<${input}, StreamOptions>): Promise<EventStream<StreamEventOf<${op}>>>;`,
    );
  } else {
    group.types.push(
      `${doc(operation, "    ")}\n    ${name}(...args: Args<${input}, CallOptions>): Promise<Result<${op}, S>>;`,
    );
  }
  group.table.push(`    ${name}: E.${id},`);

  const success200 = jsonSchema(success);
  const arrays =
    success200?.def?.type === "object"
      ? Object.entries(success200.shape ?? {}).filter(([, s]) => s.def?.type === "array")
      : [];
  const paging = pagingOf((request.query as Shape | undefined)?.shape?.limit);
  if (paging && queryParams.includes("offset") && arrays.length === 1) {
    const [items] = arrays[0] as [string, Shape];
    const iterateName = name.replace(/^list/, "iterate");
    add(iterateName);
    group.types.push(
      `    /** Every item of \`${name}\`, page by page (\`limit\` is the page size: at most ${paging.cap}, the default). */\n    ${iterateName}(...args: Args<Omit<${input}, "offset">, CallOptions>): AsyncIterable<ItemOf<${op}, "${items}">>;`,
    );
    group.table.push(`    ${iterateName}: [E.${id}, "${items}", ${paging.cap}],`);
  }
}

const header = "// Generated by scripts/generate.ts from @dbmon/contract: do not edit.\n";
const target = (file: string) => fileURLToPath(new URL(`../src/generated/${file}`, import.meta.url));

writeFileSync(
  target("endpoints.ts"),
  `${header}import type * as C from "@dbmon/contract";\nimport type { Endpoint } from "../types.js";\n\n${endpoints.join("\n\n")}\n`,
);

const sorted = [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
writeFileSync(
  target("resources.ts"),
  `${header}import type * as C from "@dbmon/contract";
import type { CallOptions, Result, ResultStyle } from "../client.js";
import type { StreamEventOf } from "../events.js";
import type { EventStream, StreamOptions } from "../stream.js";
import type { Args, Endpoint, FlatInput, ItemOf, WrappedInput } from "../types.js";
import * as E from "./endpoints.js";

/** Every operation of dbmon, grouped by resource. */
export interface Resources<S extends ResultStyle> {
${sorted.map(([name, group]) => `  ${name}: {\n${group.types.join("\n")}\n  };`).join("\n")}
}

/** Which endpoint each method calls; \`[endpoint, items, page cap]\` for the iterators of paged lists. */
export const resourceTable: Record<string, Record<string, Endpoint | readonly [Endpoint, string, number]>> = {
${sorted.map(([name, group]) => `  ${name}: {\n${group.table.join("\n")}\n  },`).join("\n")}
};
`,
);
console.log(`wrote ${allOperations.length} endpoints in ${groups.size} resources`);
