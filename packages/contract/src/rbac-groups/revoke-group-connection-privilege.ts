import { z } from "@hono/zod-openapi";
import { idParam } from "../common.js";
import { defineOperation } from "../operation.js";

export const revokeGroupConnectionPrivilege = defineOperation({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}/privileges/connections/{connectionId}",
  operationId: "revokeGroupConnectionPrivilege",
  summary: "Revoke a group's access to one connection",
  tag: "rbac",
  access: { permission: "manage_permissions" },
  request: {
    params: z.object({
      id: idParam("Invalid group ID").openapi({ param: { name: "id", in: "path" } }),
      connectionId: idParam("Invalid connection ID", 0).openapi({
        param: { name: "connectionId", in: "path" },
      }),
    }),
  },
  responses: { 204: { description: "Privilege revoked" } },
  errors: [400, 404],
});
