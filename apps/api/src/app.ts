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
import type { UndeclaredStatus } from "./http/operations.js";
import { registerRoutes } from "./routes/index.js";
import type { AppEnv, Services } from "./services.js";

export interface AppOptions {
  /**
   * Told of every answer whose status its operation does not declare (the contract has drifted).
   * By default it is logged as a warning; the tests fail on it.
   */
  onUndeclaredStatus?: (report: UndeclaredStatus) => void;
}

/** Builds the whole HTTP application around the given services; no state lives outside it. */
export function createApp(services: Services, options: AppOptions = {}): App {
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

  registerRoutes(
    app,
    options.onUndeclaredStatus ??
      ((report) => services.logger.warn(report, "an answer's status is not declared by its operation")),
  );

  app.notFound(unmatchedRequestHandler(app));
  app.onError(handleError);
  return app;
}
