import { isSentenceMessage } from "@dbmon/contract";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import type { AppEnv } from "../services.js";

/** The one way a handler or middleware refuses a request: becomes `{"error": message}`. */
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
  if (error instanceof HTTPException) {
    // Hono's own refusals (a malformed JSON body, for one).
    const status = error.status as ContentfulStatusCode;
    return c.json(
      { error: status === 400 ? "Invalid request body" : error.message || "Request failed" },
      status,
    );
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
  throw new ApiError(400, describeValidationError(result.error, result.target));
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
