import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { UserCreateRequestSchema } from "./schemas.js";

export const createUser = defineOperation({
  method: "post",
  path: "/api/v1/rbac/users",
  operationId: "createUser",
  summary: "Create a user",
  description: "Passwords need at least 12 characters and must not be a common password.",
  tag: "rbac",
  access: { permission: "manage_users", note: "Creating a superuser requires a superuser." },
  request: { body: jsonBody(UserCreateRequestSchema) },
  responses: {
    201: jsonResponse(
      z
        .object({ message: z.string().openapi({ example: "User created" }), id: z.number().int() })
        .openapi("UserCreated"),
      "User created",
    ),
  },
  errors: [400, 409],
});
