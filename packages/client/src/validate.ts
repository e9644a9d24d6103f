import type { Operation } from "@dbmon/contract";
import type { ResponseValidator } from "./client.js";
import type { ValidationIssue } from "./errors.js";
import type { RouteLike } from "./types.js";

type Schema = {
  safeParseAsync(
    value: unknown,
  ): Promise<
    { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } }
  >;
};
type Responses = Record<string, { content?: Record<string, { schema?: Schema }> }>;

/**
 * Validation mode: a `validate` option that checks every JSON response against the operation's
 * response schema in `@dbmon/contract`. The contract, and Zod with it, is loaded with a dynamic
 * `import()` on the first response checked, so a client without validation never bundles them
 * (and bundlers that split code put them in a chunk of their own).
 *
 * @example
 * const dbmon = createDbmon({ baseUrl, validate: contractValidator() });
 */
export function contractValidator(): ResponseValidator {
  let schemas: Promise<Map<string, Responses>> | undefined;
  return async (route, status, body) => {
    schemas ??= import("@dbmon/contract").then(
      ({ allOperations }) =>
        new Map(
          allOperations.map((operation: Operation) => [key(operation), operation.responses as Responses]),
        ),
    );
    const schema = (await schemas).get(key(route))?.[status]?.content?.["application/json"]?.schema;
    if (!schema) {
      return [];
    }
    const result = await schema.safeParseAsync(body);
    return result.success ? [] : result.error.issues.map(issue);
  };
}

function key(route: RouteLike): string {
  return `${route.method.toLowerCase()} ${route.path}`;
}

function issue({ path, message }: { path: PropertyKey[]; message: string }): ValidationIssue {
  return { path: path.map((part) => (typeof part === "symbol" ? String(part) : part)), message };
}
