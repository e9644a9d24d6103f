import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { RbacUserSchema } from "./schemas.js";

export const listUsers = defineOperation({
  method: "get",
  path: "/api/v1/rbac/users",
  operationId: "listUsers",
  summary: "List users",
  description: "All users, ordered by username.",
  tag: "rbac",
  access: { permission: "manage_users" },
  responses: {
    200: jsonResponse(z.object({ users: z.array(RbacUserSchema) }).openapi("UserList"), "User list"),
  },
});
