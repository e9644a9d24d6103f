import { callMcpToolHandler } from "./call-mcp-tool.js";
import { listMcpToolsHandler } from "./list-mcp-tools.js";

export const mcpHandlers = [listMcpToolsHandler, callMcpToolHandler];
