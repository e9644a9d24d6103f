import { z } from "@hono/zod-openapi";
import { jsonResponse, message } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConnectionAccessSchema } from "../rbac-privileges/schemas.js";
import { GroupConnectionPrivilegesSchema, GroupIdParamSchema } from "./schemas.js";

export const setGroupConnectionPrivileges = defineOperation({
  method: "put",
  path: "/api/v1/rbac/groups/{id}/privileges/connections",
  operationId: "setGroupConnectionPrivileges",
  summary: "Set group connection privileges",
  description: "Replaces the whole set at once (connection 0 = all).",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: {
    params: GroupIdParamSchema,
    body: jsonBody(
      z
        .object({ connections: z.array(ConnectionAccessSchema, message("connections must be an array")) })
        .openapi("GroupConnectionPrivilegesRequest"),
    ),
  },
  responses: { 200: jsonResponse(GroupConnectionPrivilegesSchema, "The new set") },
  errors: [400, 404],
});
