import { z } from "@hono/zod-openapi";
import { idParam } from "../common.js";
import { defineOperation } from "../operation.js";

export const revokeGroupPermission = defineOperation({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}/permissions/{permission}",
  operationId: "revokeGroupPermission",
  summary: "Revoke one admin permission from a group",
  tag: "rbac",
  access: { superuser: true },
  request: {
    params: z.object({
      id: idParam("Invalid group ID").openapi({ param: { name: "id", in: "path" } }),
      permission: z
        .string()
        .min(1)
        .openapi({ param: { name: "permission", in: "path" } }),
    }),
  },
  responses: { 204: { description: "Permission revoked" } },
  errors: [400, 404],
});
