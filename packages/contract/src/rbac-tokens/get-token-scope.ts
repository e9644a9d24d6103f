import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { TokenIdParamSchema, TokenScopeSchema } from "./schemas.js";

export const getTokenScope = defineOperation({
  method: "get",
  path: "/api/v1/rbac/tokens/{id}/scope",
  operationId: "getTokenScope",
  summary: "Get a token scope",
  tag: "rbac",
  access: { permission: "manage_token_scopes" },
  request: { params: TokenIdParamSchema },
  responses: { 200: jsonResponse(TokenScopeSchema, "Token scope details") },
  errors: [400, 404],
});
