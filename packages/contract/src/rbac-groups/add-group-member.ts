import { defineOperation, jsonBody } from "../operation.js";
import { GroupIdParamSchema, GroupMemberRequestSchema } from "./schemas.js";

export const addGroupMember = defineOperation({
  method: "post",
  path: "/api/v1/rbac/groups/{id}/members",
  operationId: "addGroupMember",
  summary: "Add a group member",
  description:
    "Adds a user, or nests a group (whose members then inherit this group's grants). A group " +
    "cannot contain itself, directly or through other groups.",
  tag: "rbac",
  access: { permission: "manage_groups" },
  request: { params: GroupIdParamSchema, body: jsonBody(GroupMemberRequestSchema) },
  responses: { 204: { description: "Member added" } },
  errors: [400, 404],
});
