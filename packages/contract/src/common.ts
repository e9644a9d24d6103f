import { z } from "@hono/zod-openapi";

/** Every error, whatever produced it, is this body (decision D1). */
export const ErrorSchema = z
  .object({ error: z.string().openapi({ example: "Connection not found" }) })
  .openapi("Error");
export type ErrorBody = z.infer<typeof ErrorSchema>;

/** Positive integer identifiers as they appear in JSON bodies. */
export const IdSchema = z.number().int().positive();

/** ISO 8601 timestamps in UTC, as every timestamp on the wire is written. */
export const TimestampSchema = z.iso.datetime({ offset: true }).openapi({ example: "2026-11-22T08:15:30Z" });

const errorDescriptions = {
  400: "Bad request: invalid parameters or body",
  401: "Missing or invalid authentication token",
  403: "Insufficient permissions",
  404: "Resource does not exist",
  405: "Method not allowed",
  409: "Conflict with the current state of the resource",
  413: "Request body too large",
  429: "Too many requests",
  500: "Internal server error",
  502: "Upstream provider error",
  503: "Service unavailable",
} as const;

export type ErrorStatus = keyof typeof errorDescriptions;

type ErrorResponses<S extends ErrorStatus> = {
  [K in S]: { description: string; content: { "application/json": { schema: typeof ErrorSchema } } };
};

/**
 * The error responses a route declares, all with the shared error body. 500 is always included
 * because any route can fail internally.
 */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]): ErrorResponses<S | 500> {
  const all = [...new Set<S | 500>([...statuses, 500])];
  return Object.fromEntries(
    all.map((status) => [
      status,
      { description: errorDescriptions[status], content: { "application/json": { schema: ErrorSchema } } },
    ]),
  ) as unknown as ErrorResponses<S | 500>;
}

/** A JSON response of the given schema. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } } as const;
}

/** Security requirement of routes that need a session or service token. */
export const authenticated: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];

/** Security requirement of public routes (no token needed). */
export const publicAccess: never[] = [];

const sentenceMessages = new Set<string>();

/**
 * A validation message meant for the caller as written (the reference's texts, such as
 * "Invalid connection ID"); other validation messages get the field's name in front.
 */
export function message(text: string): { error: string } {
  sentenceMessages.add(text);
  return { error: text };
}

export function isSentenceMessage(text: string): boolean {
  return sentenceMessages.has(text);
}

/**
 * An integer identifier in a path segment (at least `min`); anything else is a 400 with `invalid`,
 * the reference's wording such as "Invalid connection ID".
 */
export function idParam(invalid: string, min = 1) {
  return z
    .string()
    .regex(min === 0 ? /^(0|[1-9]\d{0,14})$/ : /^[1-9]\d{0,14}$/, message(invalid))
    .transform(Number)
    .openapi({ type: "integer", minimum: min, example: 1 });
}
