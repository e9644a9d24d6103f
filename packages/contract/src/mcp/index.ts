import { callMcpTool } from "./call-mcp-tool.js";
import { listMcpTools } from "./list-mcp-tools.js";

export * from "./call-mcp-tool.js";
export * from "./list-mcp-tools.js";
export * from "./schemas.js";

export const mcpOperations = [listMcpTools, callMcpTool] as const;
