import type { RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { validationHook } from "../http/errors.js";
import type { AppEnv } from "../services.js";
import type { AccessRequirement } from "./access.js";

type GuardedRoute<R extends RouteConfig> = R & { middleware: MiddlewareHandler<AppEnv> };

/**
 * A route with its access requirement attached, to pass to `app.openapi`. The check runs before the
 * handler: 401 without a valid credential, then 400 for malformed path parameters (so a bad id is
 * reported even to callers who may not use the route), then 403 unless the requirement is met.
 * Body and query validation follow. Public routes (security `[]`) are registered without a guard.
 */
export function guarded<R extends RouteConfig>(route: R, requirement: AccessRequirement): GuardedRoute<R> {
  if (!route.security || route.security.length === 0) {
    throw new Error(
      `${route.method.toUpperCase()} ${route.path} is public: it cannot have an access requirement`,
    );
  }
  const params = route.request?.params;
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const access = c.get("access");
    await access.requireCaller();
    let values: Record<string, unknown> = c.req.param();
    if (params) {
      const parsed = await params.safeParseAsync(values);
      if (!parsed.success) {
        validationHook({ success: false, error: parsed.error, target: "param" });
      } else {
        values = parsed.data as Record<string, unknown>;
      }
    }
    const connectionParam = requirement.connection?.param;
    const connectionId = connectionParam === undefined ? undefined : Number(values[connectionParam]);
    await access.require(requirement, Number.isInteger(connectionId) ? connectionId : undefined);
    await next();
  };
  return { ...route, middleware };
}
