import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { GroupConnectionPrivilegesSchema, GroupIdParamSchema } from "./schemas.js";

export const getGroupConnectionPrivileges = defineOperation({
  method: "get",
  path: "/api/v1/rbac/groups/{id}/privileges/connections",
  operationId: "getGroupConnectionPrivileges",
  summary: "Get group connection privileges",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: { params: GroupIdParamSchema },
  responses: { 200: jsonResponse(GroupConnectionPrivilegesSchema, "Connection privileges") },
  errors: [400, 404],
});
