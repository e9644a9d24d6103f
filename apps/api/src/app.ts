import { OpenAPIHono } from "@hono/zod-openapi";
import { requestId } from "hono/request-id";
import type { App } from "./http/app-type.js";
import { handleError, validationHook } from "./http/errors.js";
import { unmatchedRequestHandler } from "./http/method-not-allowed.js";
import {
  corsForOrigin,
  forgetAccessAfterWrites,
  limitBodySize,
  logRequests,
  noStoreForCredentials,
  provideServices,
  refuseCrossOriginCookieWrites,
  refuseNulCharacters,
  securityHeaders,
  serviceDescLink,
} from "./http/middleware.js";
import { registerRoutes } from "./routes/index.js";
import type { AppEnv, Services } from "./services.js";

/** Builds the whole HTTP application around the given services; no state lives outside it. */
export function createApp(services: Services): App {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", requestId());
  app.use("*", provideServices(services));
  app.use("*", logRequests);
  app.use("*", forgetAccessAfterWrites);
  app.use("*", securityHeaders(services.config));
  app.use("*", serviceDescLink);
  app.use("*", noStoreForCredentials);
  if (services.config.corsOrigin) {
    app.use("*", corsForOrigin(services.config.corsOrigin));
  }
  app.use("*", refuseCrossOriginCookieWrites(services.config.corsOrigin));
  app.use("*", limitBodySize);
  app.use("*", refuseNulCharacters);

  registerRoutes(app);

  app.notFound(unmatchedRequestHandler(app));
  app.onError(handleError);
  return app;
}
