import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { McpToolCallRequestSchema, McpToolCallResponseSchema } from "./schemas.js";

export const callMcpTool = defineOperation({
  method: "post",
  path: "/api/v1/mcp/tools/call",
  operationId: "callMCPTool",
  summary: "Execute an MCP tool",
  description:
    "Runs a tool of the catalogue as `/mcp/v1` would. A refusal (a tool the caller may not use, a connection it cannot reach, bad arguments) or a tool-level error is a 200 with `isError: true`; an unexpected failure is a 500 `Tool execution failed`.",
  tag: "mcp",
  access: {
    note: "Each call checks the caller's MCP privileges, the token's scope and, for tools bound to a connection, access to it.",
  },
  request: { body: jsonBody(McpToolCallRequestSchema) },
  responses: { 200: jsonResponse(McpToolCallResponseSchema, "The tool's result") },
  errors: [400],
});
