import { isSentenceMessage } from "@dbmon/contract";
import { isDatastoreUnavailable } from "@dbmon/datastore";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import { DomainError, type DomainErrorKind, InvalidInput, TooManyRequests } from "../errors.js";
import type { AppEnv } from "../services.js";
import { DATASTORE_RETRY_AFTER_SECONDS, reportDatastoreOutage } from "./datastore-outage.js";

/** The status each kind of domain refusal is answered with. */
const statusOf: Record<DomainErrorKind, ContentfulStatusCode> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  too_many_requests: 429,
  failed: 500,
  upstream_failed: 502,
  unavailable: 503,
};

/**
 * A refusal of the HTTP layer itself (a method not allowed, a body over the limit), with the
 * headers it needs. Domain code throws the errors of `../errors.js` instead.
 */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** `onError`: every thrown error ends here and leaves as a JSON error body. */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof ApiError) {
    for (const [name, value] of Object.entries(error.headers)) {
      c.header(name, value);
    }
    return c.json({ error: error.message }, error.status);
  }
  if (error instanceof DomainError) {
    if (error instanceof TooManyRequests) {
      c.header("Retry-After", String(error.retryAfterSeconds));
    }
    return c.json({ error: error.message }, statusOf[error.kind]);
  }
  if (error instanceof HTTPException) {
    // Hono's own refusals (a malformed JSON body, for one).
    const status = error.status as ContentfulStatusCode;
    return c.json(
      { error: status === 400 ? "Invalid request body" : error.message || "Request failed" },
      status,
    );
  }
  const services = c.get("services");
  if (services && isDatastoreUnavailable(error, services.datastore)) {
    reportDatastoreOutage(services.datastore, services.logger, error);
    c.header("Retry-After", String(DATASTORE_RETRY_AFTER_SECONDS));
    return c.json({ error: "Datastore unavailable" }, 503);
  }
  const sqlState = sqlStateOf(error);
  if (sqlState?.startsWith("22") || sqlState === "54000") {
    // A data exception (a number out of a column's range, text the database cannot store) or a
    // value too large for an index: the request carried a value no schema caught. The caller's
    // mistake, but worth a look.
    c.get("services")?.logger.warn(
      { sqlState, requestId: c.get("requestId"), method: c.req.method, path: c.req.path },
      "request refused by a data exception",
    );
    return c.json({ error: "Invalid request: a value is out of range or malformed" }, 400);
  }
  c.get("services")?.logger.error(
    { err: error, requestId: c.get("requestId"), method: c.req.method, path: c.req.path },
    "unhandled error",
  );
  // Never internals (stack, SQL) in the body.
  return c.json({ error: "Internal server error" }, 500);
}

type ValidationTarget = "json" | "form" | "query" | "param" | "header" | "cookie";

/** The validation hook of every route: the first problem, as one readable line. */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target: ValidationTarget },
): void {
  if (result.success) {
    return;
  }
  throw new InvalidInput(describeValidationError(result.error, result.target));
}

export function describeValidationError(error: ZodError, target: ValidationTarget): string {
  const issue = error.issues[0];
  if (!issue) {
    return "Invalid request";
  }
  if (isSentenceMessage(issue.message)) {
    return issue.message;
  }
  const field = issue.path.map(String).join(".");
  const where =
    target === "json" ? "Invalid request body" : `Invalid ${target === "param" ? "path" : target} parameter`;
  return field ? `${where}: ${field}: ${issue.message}` : `${where}: ${issue.message}`;
}

/** The SQLSTATE of a PostgreSQL error, also when a query builder wrapped it (as `cause`). */
function sqlStateOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
      return code;
    }
    current = current.cause;
  }
  return undefined;
}
