import { defineOperation, jsonBody } from "../operation.js";
import { TokenIdParamSchema, TokenScopeRequestSchema } from "./schemas.js";

export const setTokenScope = defineOperation({
  method: "put",
  path: "/api/v1/rbac/tokens/{id}/scope",
  operationId: "setTokenScope",
  summary: "Set a token scope",
  description:
    "Each list given replaces that part of the scope (an empty list lifts it); lists not given stay. " +
    "A scope only narrows what the owner may do, for superusers' tokens too.",
  tag: "rbac",
  access: { permission: "manage_token_scopes" },
  request: { params: TokenIdParamSchema, body: jsonBody(TokenScopeRequestSchema) },
  responses: { 204: { description: "Scope updated" } },
  errors: [400, 404],
});
