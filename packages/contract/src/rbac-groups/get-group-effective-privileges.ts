import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { GroupEffectivePrivilegesSchema, GroupIdParamSchema } from "./schemas.js";

export const getGroupEffectivePrivileges = defineOperation({
  method: "get",
  path: "/api/v1/rbac/groups/{id}/effective-privileges",
  operationId: "getGroupEffectivePrivileges",
  summary: "Group effective privileges",
  description: "The group's own grants plus those of every group it is nested in.",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: { params: GroupIdParamSchema },
  responses: { 200: jsonResponse(GroupEffectivePrivilegesSchema, "Effective privilege details") },
  errors: [400, 404],
});
