import { defineOperation } from "../operation.js";
import { GroupIdParamSchema } from "./schemas.js";

export const deleteGroup = defineOperation({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}",
  operationId: "deleteGroup",
  summary: "Delete a group",
  description: "Deletes the group, its memberships and grants.",
  tag: "rbac",
  access: { permission: "manage_groups" },
  request: { params: GroupIdParamSchema },
  responses: { 204: { description: "Group deleted" } },
  errors: [400, 404],
});
