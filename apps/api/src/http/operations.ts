import type { Operation } from "@dbmon/contract";
import type { RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { guard } from "../auth/guard.js";
import type { AppEnv } from "../services.js";
import type { App } from "./app-type.js";

/** An answer whose status the operation's contract does not declare: the contract has drifted. */
export interface UndeclaredStatus {
  operationId: string;
  method: string;
  path: string;
  status: number;
}

/** The handler of one contract operation, ready to be registered with its access check. */
export interface Implementation {
  readonly operation: Operation;
  register(app: App, onUndeclaredStatus: (report: UndeclaredStatus) => void): void;
}

/**
 * Pairs an operation of the contract with its handler; the guard comes from the operation's access
 * rule. Every answer's status is compared with those the operation declares (whatever produced it:
 * the guard, validation, the handler or the error path), and one it does not declare is reported.
 */
export function implement<R extends Operation>(
  operation: R,
  handler: RouteHandler<R, AppEnv>,
): Implementation {
  return {
    operation,
    register: (app, onUndeclaredStatus) => {
      const declared = new Set(Object.keys(operation.responses).map(Number));
      const checkStatus: MiddlewareHandler<AppEnv> = async (c, next) => {
        await next();
        if (!declared.has(c.res.status)) {
          onUndeclaredStatus({
            operationId: operation.operationId ?? "",
            method: operation.method.toUpperCase(),
            path: operation.path,
            status: c.res.status,
          });
        }
      };
      const guarded = guard(operation) as R & { middleware?: MiddlewareHandler<AppEnv> };
      const middleware = [checkStatus, ...(guarded.middleware ? [guarded.middleware] : [])];
      app.openapi({ ...guarded, middleware } as R, handler as never);
    },
  };
}

/**
 * Registers every implementation, each operation once, in an order no registration can shadow:
 * Hono tries handlers in registration order, so `/connections/current` must come before
 * `/connections/{id}`. Sorting by path, a literal segment before a parameter, settles it for any
 * set of routes.
 */
export function registerOperations(
  app: App,
  implementations: readonly Implementation[],
  onUndeclaredStatus: (report: UndeclaredStatus) => void,
): void {
  const seen = new Set<string>();
  for (const { operation } of implementations) {
    const key = `${operation.method} ${operation.path}`;
    if (seen.has(key) || seen.has(operation.operationId ?? key)) {
      throw new Error(`${key} (${operation.operationId}) is implemented twice`);
    }
    seen.add(key);
    seen.add(operation.operationId ?? key);
  }
  for (const implementation of [...implementations].sort((a, b) =>
    comparePaths(a.operation.path, b.operation.path),
  )) {
    implementation.register(app, onUndeclaredStatus);
  }
}

/** Orders paths so that a literal segment precedes a `{parameter}` at the first place they differ. */
export function comparePaths(a: string, b: string): number {
  const left = a.split("/");
  const right = b.split("/");
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i] as string;
    const y = right[i] as string;
    if (x === y) {
      continue;
    }
    const xParam = x.startsWith("{");
    const yParam = y.startsWith("{");
    if (xParam !== yParam) {
      return xParam ? 1 : -1;
    }
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}
