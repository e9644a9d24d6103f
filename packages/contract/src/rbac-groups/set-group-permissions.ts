import { z } from "@hono/zod-openapi";
import { jsonResponse, message } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { GroupIdParamSchema, GroupPermissionsSchema } from "./schemas.js";

export const setGroupPermissions = defineOperation({
  method: "put",
  path: "/api/v1/rbac/groups/{id}/permissions",
  operationId: "setGroupPermissions",
  summary: "Set group admin permissions",
  description: "Replaces the whole set at once; unknown names are refused.",
  tag: "rbac",
  access: { superuser: true },
  request: {
    params: GroupIdParamSchema,
    body: jsonBody(
      z
        .object({ permissions: z.array(z.string(), message("permissions must be an array of names")) })
        .openapi("GroupPermissionsRequest"),
    ),
  },
  responses: { 200: jsonResponse(GroupPermissionsSchema, "The new set") },
  errors: [400, 404],
});
