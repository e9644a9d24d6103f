import { callMcpTool } from "./call-mcp-tool.js";
import { listMcpTools } from "./list-mcp-tools.js";
import { mcpJsonRpc } from "./mcp-json-rpc.js";

export * from "./call-mcp-tool.js";
export * from "./list-mcp-tools.js";
export * from "./mcp-json-rpc.js";
export * from "./schemas.js";

export const mcpOperations = [listMcpTools, callMcpTool, mcpJsonRpc] as const;
