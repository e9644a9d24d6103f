import { healthHandler } from "./health.js";
import { openApiDocumentHandler } from "./openapi-document.js";

export const utilityHandlers = [healthHandler, openApiDocumentHandler];
