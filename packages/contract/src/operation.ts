import { createRoute, type RouteConfig, type z } from "@hono/zod-openapi";
import { type Access, describeAccess, hasRequirement } from "./access.js";
import { authenticated, type ErrorStatus, errorResponses, publicAccess } from "./common.js";
import { tags } from "./tags.js";

export type TagKey = keyof typeof tags;

/** What an operation file states; everything shared by all operations is added by `defineOperation`. */
export type OperationConfig = Omit<RouteConfig, "security" | "tags"> & {
  /** The resource group the operation is listed under (its OpenAPI tag). */
  tag: TagKey;
  /** Who may call it; enforced by the API's guard and written into the description. */
  access: Access;
  /**
   * Error statuses particular to the operation. Those that follow from its shape are added: 400
   * (any input: path, query or body), 404 (a path parameter, or a connection the access rule looks
   * up), 401 (any token-protected operation),
   * 403 (any with a requirement), 503 (the datastore is down) and 500.
   */
  errors?: readonly ErrorStatus[];
  /**
   * Groups of query parameters of which at least one must be given (the API answers 400 without).
   * OpenAPI 3.0 cannot say this of parameters; it is written as `x-dbmon-one-of-required`, which the
   * client's generator turns into a union type.
   */
  oneOfRequired?: readonly (readonly string[])[];
};

/** An operation of the contract: a route definition for Hono plus its declared access rule. */
export type Operation<C extends OperationConfig = OperationConfig> = Omit<
  C,
  "tag" | "errors" | "oneOfRequired"
> & {
  tags: string[];
  security: Record<string, string[]>[];
  getRoutingPath(): string;
};

/**
 * Defines one operation: tag, security, the access sentence of the description, the
 * `x-dbmon-access` extension and the error responses its shape and its rule imply.
 */
export function defineOperation<const C extends OperationConfig>(config: C): Operation<C> {
  const { tag, errors = [], access, description, responses, oneOfRequired, ...route } = config;
  const implied: ErrorStatus[] = [];
  const request = route.request;
  if (request?.params || request?.query || request?.body) {
    implied.push(400);
  }
  // A path parameter names something that may not exist; so does a connection the guard looks up.
  if (route.path.includes("{") || (access !== "public" && (access.connection || access.connectionOwner))) {
    implied.push(404);
  }
  if (access !== "public") {
    implied.push(401);
  }
  if (hasRequirement(access)) {
    implied.push(403);
  }
  // Every request may find the datastore down (the guard alone reads it); an operation that
  // answers 503 with a body of its own (/health) keeps it.
  if (!(503 in (responses as Record<number, unknown>))) {
    implied.push(503);
  }
  const statuses = [...new Set([...errors, ...implied])].sort((a, b) => a - b);
  const definition = createRoute({
    ...route,
    description: [description, describeAccess(access)].filter(Boolean).join("\n\n"),
    tags: [tags[tag].name],
    security: access === "public" ? publicAccess : authenticated,
    responses: { ...responses, ...errorResponses(...statuses) },
    "x-dbmon-access": access,
    ...(oneOfRequired ? { "x-dbmon-one-of-required": oneOfRequired } : {}),
  } as RouteConfig);
  // Not enumerable: the route object is spread into the OpenAPI document, which carries the rule
  // as `x-dbmon-access` already.
  Object.defineProperty(definition, "access", { value: access, enumerable: false });
  return definition as unknown as Operation<C>;
}

/** A required JSON request body of the given schema. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return {
    required: true,
    ...(description ? { description } : {}),
    content: { "application/json": { schema } },
  } as const;
}
