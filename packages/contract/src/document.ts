import { OpenAPIHono } from "@hono/zod-openapi";
import packageJson from "../package.json" with { type: "json" };
import { alertRoutes } from "./groups/alerts.js";
import { blackoutRoutes } from "./groups/blackouts.js";
import { notificationRoutes } from "./groups/notifications.js";
import { allOperations } from "./operations.js";
import { tags } from "./tags.js";

/** Route groups not yet moved to one file per operation. */
const legacyRouteGroups = {
  alerts: alertRoutes,
  blackouts: blackoutRoutes,
  notifications: notificationRoutes,
} as const;

/** Every route of the contract. The API registers a handler for each. */
export const allRoutes = [
  ...allOperations,
  ...Object.values(legacyRouteGroups).flatMap((group) => Object.values(group)),
];

export const apiVersion = packageJson.version;

export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPIDocument"]>;

/**
 * Builds the OpenAPI 3.0.3 document from the route definitions alone, so the contract package can
 * write it at build time and the API can serve the very same object.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  const app = new OpenAPIHono();
  const registry = app.openAPIRegistry;
  registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A session token from POST /api/v1/auth/login or a service token",
  });
  registry.registerComponent("securitySchemes", "cookieAuth", {
    type: "apiKey",
    in: "cookie",
    name: "session_token",
    description: "The session cookie set by POST /api/v1/auth/login",
  });
  for (const route of allRoutes) {
    registry.registerPath(route);
  }
  return app.getOpenAPIDocument({
    openapi: "3.0.3",
    info: {
      title: "dbmon API",
      version: apiVersion,
      description:
        "REST API of dbmon, a monitoring service for fleets of PostgreSQL servers. " +
        'Every error is a JSON body {"error": "..."}.',
      license: { name: "Apache-2.0" },
    },
    servers: [{ url: "/", description: "This dbmon server" }],
    tags: Object.values(tags).map((tag) => ({ ...tag })),
  });
}
