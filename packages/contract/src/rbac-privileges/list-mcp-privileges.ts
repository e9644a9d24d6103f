import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { McpPrivilegeSchema } from "./schemas.js";

export const listMcpPrivileges = defineOperation({
  method: "get",
  path: "/api/v1/rbac/privileges/mcp",
  operationId: "listMCPPrivileges",
  summary: "List MCP privilege identifiers",
  description: "Every registered MCP tool, resource and prompt.",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  responses: {
    200: jsonResponse(z.array(McpPrivilegeSchema).openapi("MCPPrivilegeList"), "MCP privilege identifiers"),
  },
});
