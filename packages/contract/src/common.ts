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
  415: "Unsupported media type",
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

/** The largest value of the datastore's `integer` columns: larger ids cannot name a row. */
export const MAX_INT4 = 2_147_483_647;

/**
 * A parameter the wire carries as text but callers' code passes as `T` (a number, a boolean): the
 * schema parses the text, and its TypeScript input type is `T` so typed clients take `T`.
 */
export function typedText<In, S extends z.ZodType>(schema: S): z.ZodType<z.output<S>, In> {
  return schema as unknown as z.ZodType<z.output<S>, In>;
}

const decimal = (min: number) => (min === 0 ? /^(0|[1-9]\d{0,9})$/ : /^[1-9]\d{0,9}$/);

/**
 * An integer identifier in a path segment (at least `min`, at most a 32-bit integer); anything
 * else is a 400 with `invalid`, the reference's wording such as "Invalid connection ID".
 */
export function idParam(invalid: string, min = 1) {
  return typedText<number, z.ZodType<number>>(
    z
      .string()
      .regex(decimal(min), message(invalid))
      .transform(Number)
      .refine((id) => id <= MAX_INT4, message(invalid))
      .openapi({ type: "integer", minimum: min, maximum: MAX_INT4, example: 1 }),
  );
}

/**
 * An optional integer in the query string: absent or not a number is ignored (undefined), as the
 * decisions want for filters and paging; a number beyond what a column holds is a 400.
 */
export function lenientIntQuery(openapi: { description?: string; example?: number } = {}) {
  return typedText<number, z.ZodType<number | undefined>>(
    z
      .string()
      .transform((text) => (/^\d{1,15}$/.test(text) ? Number(text) : undefined))
      .refine((value) => value === undefined || value <= MAX_INT4, "must be at most 2147483647")
      .openapi({ type: "integer", minimum: 0, maximum: MAX_INT4, ...openapi }),
  ).optional();
}

/**
 * How a list is paged: the page size when the caller gives none, and the most one page holds. A
 * larger `limit` is not refused (reference behaviour) but cut to `cap`; clients page by it.
 */
export interface Paging {
  defaultSize: number;
  cap: number;
}

const pagings = new WeakMap<object, Paging>();

/** The `limit` query parameter of a list paged by `paging`, which `pagingOf` gives back. */
export function pageLimitQuery(paging: Paging, noun = "Page size") {
  const schema = lenientIntQuery({
    description: `${noun} (default ${paging.defaultSize}, at most ${paging.cap})`,
  });
  pagings.set(schema, paging);
  return schema;
}

/** The paging of a `limit` parameter made by `pageLimitQuery`. */
export function pagingOf(limit: unknown): Paging | undefined {
  return typeof limit === "object" && limit !== null ? pagings.get(limit) : undefined;
}

/** A `limit` as a list answers it: the default when absent or 0, never above the cap. */
export function pageSize(limit: number | undefined, paging: Paging): number {
  return limit && limit > 0 ? Math.min(limit, paging.cap) : paging.defaultSize;
}

/**
 * How the OpenAPI document describes a query list the wire carries comma-separated
 * (`?connection_ids=1,2`): a string, as the reference's document has it (existing clients send
 * one), with its items in `x-dbmon-comma-list`, from which @dbmon/client types it as an array.
 */
export function commaListOpenApi(
  items: { type: "integer" | "string"; minimum?: number; enum?: string[] },
  description: string,
) {
  return { type: "string" as const, description, "x-dbmon-comma-list": items };
}

/**
 * An optional query value from a fixed set: empty (`?status=`) is the same as absent, as it has
 * always been; any other value outside the set is a 400 with `invalid`.
 */
export function enumQuery<const T extends readonly [string, ...string[]]>(
  values: T,
  invalid: string,
  description: string,
) {
  return z
    .string()
    .transform((text) => text || undefined)
    .pipe(z.enum(values, message(invalid)).optional())
    .optional()
    .openapi({ type: "string", enum: [...values], description });
}

/** An optional boolean in the query string: `true` or `1` is true, any other value false. */
export function lenientBoolQuery(openapi: { description?: string } = {}) {
  return typedText<boolean, z.ZodType<boolean>>(
    z
      .string()
      .transform((text) => text === "true" || text === "1")
      .openapi({ type: "boolean", ...openapi }),
  ).optional();
}
