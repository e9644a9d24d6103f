import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { GroupIdParamSchema, GroupPermissionsSchema } from "./schemas.js";

export const getGroupPermissions = defineOperation({
  method: "get",
  path: "/api/v1/rbac/groups/{id}/permissions",
  operationId: "getGroupPermissions",
  summary: "Get group admin permissions",
  tag: "rbac",
  access: { superuser: true },
  request: { params: GroupIdParamSchema },
  responses: { 200: jsonResponse(GroupPermissionsSchema, "Group admin permissions") },
  errors: [400, 404],
});
