import { compactChatHistory } from "./compact-chat-history.js";
import { health } from "./health.js";
import { openApiDocument } from "./openapi-document.js";

export * from "./compact-chat-history.js";
export * from "./health.js";
export * from "./openapi-document.js";
export * from "./schemas.js";

export const utilityOperations = [health, openApiDocument, compactChatHistory] as const;
