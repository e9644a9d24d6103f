import { compactChatHistoryHandler } from "./compact-chat-history.js";
import { healthHandler } from "./health.js";
import { openApiDocumentHandler } from "./openapi-document.js";

export const utilityHandlers = [healthHandler, openApiDocumentHandler, compactChatHistoryHandler];
