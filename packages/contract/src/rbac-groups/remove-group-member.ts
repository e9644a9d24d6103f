import { z } from "@hono/zod-openapi";
import { idParam, message } from "../common.js";
import { defineOperation } from "../operation.js";

export const removeGroupMember = defineOperation({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}/members/{type}/{memberId}",
  operationId: "removeGroupMember",
  summary: "Remove a group member",
  tag: "rbac",
  access: { permission: "manage_groups" },
  request: {
    params: z.object({
      id: idParam("Invalid group ID").openapi({ param: { name: "id", in: "path" } }),
      type: z
        .enum(["user", "group"], message("Invalid member type: must be 'user' or 'group'"))
        .openapi({ param: { name: "type", in: "path" } }),
      memberId: idParam("Invalid member ID").openapi({ param: { name: "memberId", in: "path" } }),
    }),
  },
  responses: { 204: { description: "Member removed" } },
  errors: [400, 404],
});
