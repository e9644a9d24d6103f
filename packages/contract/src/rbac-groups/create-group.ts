import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { GroupCreateRequestSchema } from "./schemas.js";

export const createGroup = defineOperation({
  method: "post",
  path: "/api/v1/rbac/groups",
  operationId: "createGroup",
  summary: "Create a group",
  tag: "rbac",
  access: { permission: "manage_groups" },
  request: { body: jsonBody(GroupCreateRequestSchema) },
  responses: {
    201: jsonResponse(
      z.object({ id: z.number().int(), name: z.string() }).openapi("GroupCreated"),
      "Group created",
    ),
  },
  errors: [400, 409],
});
