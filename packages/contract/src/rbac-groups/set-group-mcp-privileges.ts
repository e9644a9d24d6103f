import { z } from "@hono/zod-openapi";
import { jsonResponse, message } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { GroupIdParamSchema, GroupMcpPrivilegesSchema } from "./schemas.js";

export const setGroupMcpPrivileges = defineOperation({
  method: "put",
  path: "/api/v1/rbac/groups/{id}/privileges/mcp",
  operationId: "setGroupMCPPrivileges",
  summary: "Set group MCP tool privileges",
  description: "Replaces the whole set at once; unknown identifiers are refused.",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: {
    params: GroupIdParamSchema,
    body: jsonBody(
      z
        .object({ privileges: z.array(z.string(), message("privileges must be an array of identifiers")) })
        .openapi("GroupMCPPrivilegesRequest"),
    ),
  },
  responses: { 200: jsonResponse(GroupMcpPrivilegesSchema, "The new set") },
  errors: [400, 404],
});
