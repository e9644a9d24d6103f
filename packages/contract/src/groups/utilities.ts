import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse, publicAccess } from "../common.js";
import { tags } from "../tags.js";

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

export const health = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  summary: "Server health",
  description: "Reports whether the service and its datastore are up. Needs no authentication.",
  tags: [tags.utilities.name],
  security: publicAccess,
  responses: {
    200: jsonResponse(HealthSchema, "The service and its datastore are up"),
    ...errorResponses(405),
    503: jsonResponse(HealthUnavailableSchema, "The datastore is unreachable"),
  },
});

/** The OpenAPI document is free-form JSON from the contract's point of view. */
export const OpenApiDocumentSchema = z
  .object({ openapi: z.string(), info: z.object({}).passthrough(), paths: z.object({}).passthrough() })
  .passthrough()
  .openapi("OpenApiDocument");

export const openApiDocument = createRoute({
  method: "get",
  path: "/api/v1/openapi.json",
  operationId: "getOpenApiDocument",
  summary: "OpenAPI 3.0.3 description of this API",
  tags: [tags.utilities.name],
  security: publicAccess,
  responses: {
    200: jsonResponse(OpenApiDocumentSchema, "The OpenAPI 3.0.3 document"),
    ...errorResponses(405),
  },
});

export const utilityRoutes = { health, openApiDocument } as const;
