import type { Context, Hono } from "hono";
import type { AppEnv } from "../services.js";
import { ApiError } from "./errors.js";

interface RoutePattern {
  pattern: RegExp;
  method: string;
}

/**
 * Answers requests no route matched: 405 with `Allow` when the path exists under other methods,
 * otherwise 404 (decision D1).
 */
export function unmatchedRequestHandler(app: Hono<AppEnv>) {
  let patterns: RoutePattern[] | undefined;
  return (c: Context<AppEnv>): Response => {
    patterns ??= app.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => ({ method: route.method, pattern: toPattern(route.path) }));
    const methods = new Set(
      patterns.filter((route) => route.pattern.test(c.req.path)).map((route) => route.method),
    );
    if (methods.size === 0) {
      throw new ApiError(404, "Not found");
    }
    if (methods.has("GET")) {
      methods.add("HEAD");
    }
    throw new ApiError(405, "Method not allowed", { Allow: [...methods].sort().join(", ") });
  };
}

function toPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/** Refuses a method that the resource a path names does not support: 405 with `Allow`. */
export function refuseMethod(allowed: readonly string[]): never {
  throw new ApiError(405, "Method not allowed", { Allow: allowed.join(", ") });
}
