import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { McpToolListSchema } from "./schemas.js";

export const listMcpTools = defineOperation({
  method: "get",
  path: "/api/v1/mcp/tools",
  operationId: "listMCPTools",
  summary: "List available MCP tools",
  description:
    "The tools of the MCP catalogue the caller may use (its MCP privileges and, for a service token, its scope), as `/mcp/v1` lists them.",
  tag: "mcp",
  access: { note: "Tools the caller may not use are left out." },
  responses: { 200: jsonResponse(McpToolListSchema, "The caller's tools") },
});
