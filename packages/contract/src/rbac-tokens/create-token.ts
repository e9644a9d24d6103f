import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { TokenCreateRequestSchema, TokenCreateResponseSchema } from "./schemas.js";

export const createToken = defineOperation({
  method: "post",
  path: "/api/v1/rbac/tokens",
  operationId: "createToken",
  summary: "Create an API token",
  description: "Creates a service token for an enabled user.",
  tag: "rbac",
  access: { permission: "manage_token_scopes", note: "Tokens of superusers are created only by superusers." },
  request: { body: jsonBody(TokenCreateRequestSchema) },
  responses: { 201: jsonResponse(TokenCreateResponseSchema, "Token created with its raw value") },
  errors: [400, 404],
});
