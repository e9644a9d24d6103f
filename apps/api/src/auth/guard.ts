import type { Operation } from "@dbmon/contract";
import type { RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ZodType } from "zod";
import { validationHook } from "../http/errors.js";
import type { AppEnv } from "../services.js";
import type { AccessRequirement } from "./access.js";

type GuardedRoute<R extends RouteConfig> = R & { middleware: MiddlewareHandler<AppEnv> };

/**
 * The operation with the check of its declared access rule attached, to pass to `app.openapi`.
 * Public operations pass unchanged.
 */
export function guard<R extends Operation>(operation: R): R | GuardedRoute<R> {
  return operation.access === "public" ? operation : guarded(operation, operation.access);
}

/**
 * A route with its access requirement attached, to pass to `app.openapi`. The check runs before the
 * handler: 401 without a valid credential, then 400 for malformed path parameters (so a bad id is
 * reported even to callers who may not use the route) and, when the connection comes from the
 * query, for a malformed query, then 403 unless the requirement is met. Body validation follows. Public routes (security `[]`) are registered without a guard.
 */
export function guarded<R extends RouteConfig>(route: R, requirement: AccessRequirement): GuardedRoute<R> {
  if (!route.security || route.security.length === 0) {
    throw new Error(
      `${route.method.toUpperCase()} ${route.path} is public: it cannot have an access requirement`,
    );
  }
  const connection = requirement.connection ?? requirement.connectionOwner;
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const access = c.get("access");
    await access.requireCaller();
    const params = await validated(route.request?.params, c.req.param(), "param");
    let connectionId: number | undefined;
    if (connection && "param" in connection) {
      connectionId = Number(params[connection.param]);
    } else if (connection) {
      const query = await validated(route.request?.query, c.req.query(), "query");
      connectionId = Number(query[connection.query]);
    }
    await access.require(requirement, Number.isInteger(connectionId) ? connectionId : undefined);
    await next();
  };
  return { ...route, middleware };
}

/** Values checked against the route's schema (400 when they do not fit), as the handler will see them. */
async function validated(
  schema: ZodType | undefined,
  values: Record<string, unknown>,
  target: "param" | "query",
): Promise<Record<string, unknown>> {
  if (!schema) {
    return values;
  }
  const parsed = await schema.safeParseAsync(values);
  if (!parsed.success) {
    validationHook({ success: false, error: parsed.error, target });
  }
  return parsed.data as Record<string, unknown>;
}
