import { defineOperation, jsonBody } from "../operation.js";
import { ConnectionAccessSchema } from "../rbac-privileges/schemas.js";
import { GroupIdParamSchema } from "./schemas.js";

export const grantGroupConnectionPrivilege = defineOperation({
  method: "post",
  path: "/api/v1/rbac/groups/{id}/privileges/connections",
  operationId: "grantGroupConnectionPrivilege",
  summary: "Grant access to one connection to a group",
  description: "Sets the group's level on the connection (0 = all).",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: { params: GroupIdParamSchema, body: jsonBody(ConnectionAccessSchema) },
  responses: { 204: { description: "Privilege granted" } },
  errors: [400, 404],
});
