import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { GroupIdParamSchema, GroupUpdateRequestSchema, RbacGroupSchema } from "./schemas.js";

export const updateGroup = defineOperation({
  method: "put",
  path: "/api/v1/rbac/groups/{id}",
  operationId: "updateGroup",
  summary: "Update a group",
  description: "Changes the name and/or description given.",
  tag: "rbac",
  access: { permission: "manage_groups" },
  request: { params: GroupIdParamSchema, body: jsonBody(GroupUpdateRequestSchema) },
  responses: { 200: jsonResponse(RbacGroupSchema, "Updated group") },
  errors: [400, 404, 409],
});
