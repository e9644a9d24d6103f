import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { RbacTokenSchema } from "./schemas.js";

export const listTokens = defineOperation({
  method: "get",
  path: "/api/v1/rbac/tokens",
  operationId: "listTokens",
  summary: "List API tokens",
  description: "Service tokens of every user, newest first.",
  tag: "rbac",
  access: { permission: "manage_token_scopes" },
  responses: {
    200: jsonResponse(z.object({ tokens: z.array(RbacTokenSchema) }).openapi("TokenList"), "Token list"),
  },
});
