import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { MessageSchema, UserIdParamSchema, UserUpdateRequestSchema } from "./schemas.js";

export const updateUser = defineOperation({
  method: "put",
  path: "/api/v1/rbac/users/{id}",
  operationId: "updateUser",
  summary: "Update a user",
  description: "Changes the given fields at once.",
  tag: "rbac",
  access: {
    permission: "manage_users",
    note: "Superuser accounts, and who is a superuser, are changed only by superusers. Setting a user's password takes over the account, so it needs holding everything that user holds (403 otherwise).",
  },
  request: { params: UserIdParamSchema, body: jsonBody(UserUpdateRequestSchema) },
  responses: { 200: jsonResponse(MessageSchema, "User updated") },
  errors: [400, 404],
});
