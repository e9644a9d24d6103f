import { callMcpToolHandler } from "./call-mcp-tool.js";
import { listMcpToolsHandler } from "./list-mcp-tools.js";
import { mcpJsonRpcHandler } from "./mcp-json-rpc.js";

export const mcpHandlers = [listMcpToolsHandler, callMcpToolHandler, mcpJsonRpcHandler];
