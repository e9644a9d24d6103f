import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { GroupIdParamSchema, RbacGroupDetailSchema } from "./schemas.js";

export const getGroup = defineOperation({
  method: "get",
  path: "/api/v1/rbac/groups/{id}",
  operationId: "getGroup",
  summary: "Get a group",
  description: "The group with its direct members and its own grants.",
  tag: "rbac",
  access: { permission: "manage_groups" },
  request: { params: GroupIdParamSchema },
  responses: { 200: jsonResponse(RbacGroupDetailSchema, "Group details") },
  errors: [400, 404],
});
