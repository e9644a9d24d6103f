import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { RbacGroupSchema } from "./schemas.js";

export const listGroups = defineOperation({
  method: "get",
  path: "/api/v1/rbac/groups",
  operationId: "listGroups",
  summary: "List groups",
  description: "All groups with their member counts.",
  tag: "rbac",
  access: { permission: "manage_groups" },
  responses: {
    200: jsonResponse(z.object({ groups: z.array(RbacGroupSchema) }).openapi("GroupList"), "Group list"),
  },
});
