import type { ResponseValidator } from "./client.js";
import type { ValidationIssue } from "./errors.js";

type Schema = {
  safeParseAsync(
    value: unknown,
  ): Promise<
    { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } }
  >;
};
type Responses = Record<string, { content?: Record<string, { schema?: Schema }> }>;
/** What this module reads of the contract, typed here so that its declarations import nothing of it. */
type Contract = { allOperations: readonly { operationId: string; responses: unknown }[] };

/**
 * Validation mode: a `validate` option that checks every JSON response against the operation's
 * response schema in `@dbmon/contract`. The contract, and Zod with it, is loaded with a dynamic
 * `import()` on the first response checked, so a client without validation never bundles them
 * (and bundlers that split code put them in a chunk of their own). `@dbmon/contract` is an
 * optional peer dependency: install it (the same version as the client) to use this mode.
 *
 * @example
 * const dbmon = createDbmon({ baseUrl, validate: contractValidator() });
 */
export function contractValidator(): ResponseValidator {
  let schemas: Promise<Map<string, Responses>> | undefined;
  return async (route, status, body) => {
    schemas ??= (import("@dbmon/contract") as Promise<Contract>).then(
      ({ allOperations }) =>
        new Map(allOperations.map((operation) => [operation.operationId, operation.responses as Responses])),
    );
    const schema = route.operationId
      ? (await schemas).get(route.operationId)?.[status]?.content?.["application/json"]?.schema
      : undefined;
    if (!schema) {
      return [];
    }
    const result = await schema.safeParseAsync(body);
    return result.success ? [] : result.error.issues.map(issue);
  };
}

function issue({ path, message }: { path: PropertyKey[]; message: string }): ValidationIssue {
  return { path: path.map((part) => (typeof part === "symbol" ? String(part) : part)), message };
}
