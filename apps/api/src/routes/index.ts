import type { App } from "../http/app-type.js";
import { registerHealth } from "./utilities/health.js";
import { registerOpenApiDocument } from "./utilities/openapi-document.js";

/** Every operation of the contract, registered explicitly. */
export function registerRoutes(app: App): void {
  registerHealth(app);
  registerOpenApiDocument(app);
}
