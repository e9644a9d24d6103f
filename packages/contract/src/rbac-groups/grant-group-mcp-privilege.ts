import { z } from "@hono/zod-openapi";
import { message } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { GroupIdParamSchema } from "./schemas.js";

export const grantGroupMcpPrivilege = defineOperation({
  method: "post",
  path: "/api/v1/rbac/groups/{id}/privileges/mcp",
  operationId: "grantGroupMCPPrivilege",
  summary: "Grant one MCP privilege to a group",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: {
    params: GroupIdParamSchema,
    body: jsonBody(
      z
        .object({
          privilege: z
            .string(message("Privilege is required"))
            .min(1, message("Privilege is required"))
            .openapi({ description: "An MCP identifier, or * for all", example: "query_database" }),
        })
        .openapi("GroupMCPPrivilegeGrant"),
    ),
  },
  responses: { 204: { description: "Privilege granted" } },
  errors: [400, 404],
});
