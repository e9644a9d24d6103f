import { defineOperation } from "../operation.js";
import { UserIdParamSchema } from "./schemas.js";

export const deleteUser = defineOperation({
  method: "delete",
  path: "/api/v1/rbac/users/{id}",
  operationId: "deleteUser",
  summary: "Delete a user",
  description: "Deletes the user with its sessions, tokens and memberships.",
  tag: "rbac",
  access: { permission: "manage_users", note: "Superusers are deleted only by superusers." },
  request: { params: UserIdParamSchema },
  responses: { 204: { description: "User deleted" } },
  errors: [400, 404],
});
