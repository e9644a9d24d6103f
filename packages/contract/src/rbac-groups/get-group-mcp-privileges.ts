import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { GroupIdParamSchema, GroupMcpPrivilegesSchema } from "./schemas.js";

export const getGroupMcpPrivileges = defineOperation({
  method: "get",
  path: "/api/v1/rbac/groups/{id}/privileges/mcp",
  operationId: "getGroupMCPPrivileges",
  summary: "Get group MCP tool privileges",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: { params: GroupIdParamSchema },
  responses: { 200: jsonResponse(GroupMcpPrivilegesSchema, "MCP privileges") },
  errors: [400, 404],
});
