import { getServerAiAnalysis } from "./get-server-ai-analysis.js";
import { getServerInfo } from "./get-server-info.js";

export * from "./get-server-ai-analysis.js";
export * from "./get-server-info.js";
export * from "./schemas.js";

export const serverInfoOperations = [getServerInfo, getServerAiAnalysis] as const;
