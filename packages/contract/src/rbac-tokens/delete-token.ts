import { defineOperation } from "../operation.js";
import { TokenIdParamSchema } from "./schemas.js";

export const deleteToken = defineOperation({
  method: "delete",
  path: "/api/v1/rbac/tokens/{id}",
  operationId: "deleteToken",
  summary: "Delete an API token",
  tag: "rbac",
  access: { permission: "manage_token_scopes" },
  request: { params: TokenIdParamSchema },
  responses: { 204: { description: "Token deleted" } },
  errors: [400, 404],
});
