import { z } from "@hono/zod-openapi";
import { message } from "../common.js";
import { defineOperation } from "../operation.js";
import { GroupIdParamSchema } from "./schemas.js";

export const revokeGroupMcpPrivilege = defineOperation({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}/privileges/mcp",
  operationId: "revokeGroupMCPPrivilege",
  summary: "Revoke one MCP privilege from a group",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: {
    params: GroupIdParamSchema,
    query: z.object({
      name: z
        .string(message("Query parameter 'name' is required"))
        .min(1, message("Query parameter 'name' is required"))
        .openapi({ description: "The identifier to revoke" }),
    }),
  },
  responses: { 204: { description: "Privilege revoked" } },
  errors: [400, 404],
});
