import { defineOperation } from "../operation.js";
import { TokenIdParamSchema } from "./schemas.js";

export const clearTokenScope = defineOperation({
  method: "delete",
  path: "/api/v1/rbac/tokens/{id}/scope",
  operationId: "clearTokenScope",
  summary: "Clear a token scope",
  tag: "rbac",
  access: { permission: "manage_token_scopes" },
  request: { params: TokenIdParamSchema },
  responses: { 204: { description: "Scope cleared" } },
  errors: [400, 404],
});
