import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { UserIdParamSchema, UserPrivilegesSchema } from "./schemas.js";

export const getUserPrivileges = defineOperation({
  method: "get",
  path: "/api/v1/rbac/users/{id}/privileges",
  operationId: "getUserPrivileges",
  summary: "Effective privileges of a user",
  tag: "rbac",
  access: { permission: "manage_users" },
  request: { params: UserIdParamSchema },
  responses: { 200: jsonResponse(UserPrivilegesSchema, "User privilege details") },
  errors: [400, 404],
});
