import { health } from "./health.js";
import { openApiDocument } from "./openapi-document.js";

export * from "./health.js";
export * from "./openapi-document.js";
export * from "./schemas.js";

export const utilityOperations = [health, openApiDocument] as const;
