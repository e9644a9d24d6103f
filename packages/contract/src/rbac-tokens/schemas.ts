import { z } from "@hono/zod-openapi";
import { idParam, message, TimestampSchema } from "../common.js";
import { ConnectionAccessSchema } from "../rbac-privileges/schemas.js";

export const TokenIdParamSchema = z.object({
  id: idParam("Invalid token ID").openapi({ param: { name: "id", in: "path" } }),
});

export const TokenScopeSummarySchema = z
  .object({
    scoped: z.boolean(),
    connections: z.array(ConnectionAccessSchema).optional(),
    mcp_privileges: z
      .array(z.number().int())
      .optional()
      .openapi({ description: "MCP identifier IDs; 0 = all" }),
    admin_permissions: z.array(z.string()).optional(),
  })
  .openapi("TokenScopeSummary");

export const RbacTokenSchema = z
  .object({
    id: z.number().int(),
    name: z.string().openapi({ description: "The token's annotation" }),
    token_prefix: z.string().openapi({ description: "First 12 hex digits of the token's SHA-256" }),
    user_id: z.number().int(),
    username: z.string(),
    is_service_account: z.boolean(),
    is_superuser: z.boolean(),
    expires_at: TimestampSchema.nullable(),
    created_at: TimestampSchema,
    scope: TokenScopeSummarySchema.nullable().openapi({ description: "null when the token is not scoped" }),
  })
  .openapi("RBACToken");

export const TokenCreateRequestSchema = z
  .object({
    owner_username: z
      .string(message("Owner username is required"))
      .min(1, message("Owner username is required")),
    annotation: z.string().optional().openapi({ description: "What the token is for" }),
    expires_in: z.string().optional().openapi({
      description: "<n>h, <n>d, <n>w, <n>m (30 days), <n>y, or never (the default)",
      example: "30d",
    }),
  })
  .openapi("TokenCreateRequest");

export const TokenCreateResponseSchema = z
  .object({
    token: z.string().openapi({ description: "The raw token, shown only this once" }),
    id: z.number().int(),
    owner: z.string(),
    annotation: z.string(),
    expires_at: TimestampSchema.nullable(),
    message: z.string(),
  })
  .openapi("TokenCreateResponse");

export const TokenScopeSchema = z
  .object({ token_id: z.number().int() })
  .extend(TokenScopeSummarySchema.shape)
  .openapi("TokenScopeResponse");

export const TokenScopeRequestSchema = z
  .object({
    connections: z.array(ConnectionAccessSchema).optional(),
    mcp_privileges: z.array(z.string()).optional().openapi({ description: "MCP identifiers, or *" }),
    admin_permissions: z
      .array(z.string())
      .optional()
      .openapi({ description: "Admin permission names, or *" }),
  })
  .openapi("TokenScopeRequest");
