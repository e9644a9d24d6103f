import { getServerAiAnalysisHandler } from "./get-server-ai-analysis.js";
import { getServerInfoHandler } from "./get-server-info.js";

export const serverInfoHandlers = [getServerInfoHandler, getServerAiAnalysisHandler];
