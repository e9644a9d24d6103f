import { z } from "@hono/zod-openapi";

export const HealthSchema = z
  .object({
    status: z.literal("ok"),
    server: z.literal("dbmon"),
    version: z.string().openapi({ example: "0.1.0" }),
  })
  .openapi("Health");

export const HealthUnavailableSchema = z
  .object({
    status: z.literal("unavailable"),
    server: z.literal("dbmon"),
    version: z.string(),
    error: z.string().openapi({ example: "The datastore is unreachable" }),
  })
  .openapi("HealthUnavailable");

/** The OpenAPI document is free-form JSON from the contract's point of view. */
export const OpenApiDocumentSchema = z
  .object({ openapi: z.string(), info: z.object({}).passthrough(), paths: z.object({}).passthrough() })
  .passthrough()
  .openapi("OpenApiDocument");
