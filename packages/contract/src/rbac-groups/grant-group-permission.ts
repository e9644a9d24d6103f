import { z } from "@hono/zod-openapi";
import { message } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { GroupIdParamSchema } from "./schemas.js";

export const grantGroupPermission = defineOperation({
  method: "post",
  path: "/api/v1/rbac/groups/{id}/permissions",
  operationId: "grantGroupPermission",
  summary: "Grant one admin permission to a group",
  tag: "rbac",
  access: { superuser: true },
  request: {
    params: GroupIdParamSchema,
    body: jsonBody(
      z
        .object({
          permission: z
            .string(message("Permission is required"))
            .min(1, message("Permission is required"))
            .openapi({ example: "manage_blackouts" }),
        })
        .openapi("GroupPermissionGrant"),
    ),
  },
  responses: { 204: { description: "Permission granted" } },
  errors: [400, 404],
});
