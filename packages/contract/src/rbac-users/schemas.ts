import { z } from "@hono/zod-openapi";
import { idParam, message } from "../common.js";
import { AccessLevelSchema } from "../rbac-privileges/schemas.js";

export const RbacUserSchema = z
  .object({
    id: z.number().int().openapi({ description: "User ID" }),
    username: z.string(),
    display_name: z.string(),
    email: z.string(),
    annotation: z.string(),
    enabled: z.boolean(),
    is_superuser: z.boolean(),
    is_service_account: z.boolean(),
  })
  .openapi("RBACUser");

export const UserIdParamSchema = z.object({
  id: idParam("Invalid user ID").openapi({ param: { name: "id", in: "path" } }),
});

export const UserCreateRequestSchema = z
  .object({
    username: z.string(message("Username is required")).min(1, message("Username is required")),
    password: z.string().optional().openapi({ description: "Required except for service accounts" }),
    display_name: z.string().optional(),
    email: z.string().optional(),
    annotation: z.string().optional(),
    enabled: z.boolean().optional().openapi({ description: "Defaults to true" }),
    is_superuser: z.boolean().optional().openapi({ description: "Only superusers may set it" }),
    is_service_account: z
      .boolean()
      .optional()
      .openapi({ description: "Service accounts have no password and use service tokens only" }),
  })
  .openapi("UserCreateRequest");

/** The fields of a new user, as the API and the command line give them. */
export type UserCreateRequest = z.infer<typeof UserCreateRequestSchema>;

export const MessageSchema = z.object({ message: z.string() }).openapi("Message");

export const UserUpdateRequestSchema = z
  .object({
    password: z.string().optional().openapi({ description: "New password; ends the user's sessions" }),
    display_name: z.string().optional(),
    email: z.string().optional(),
    annotation: z.string().optional(),
    enabled: z.boolean().optional().openapi({ description: "false ends the user's sessions" }),
    is_superuser: z.boolean().optional().openapi({ description: "Only superusers may change it" }),
  })
  .openapi("UserUpdateRequest");

/** Changes to a user, as the API and the command line give them. */
export type UserUpdateRequest = z.infer<typeof UserUpdateRequestSchema>;

export const UserPrivilegesSchema = z
  .object({
    username: z.string(),
    is_superuser: z.boolean(),
    groups: z.array(z.string()).openapi({ description: "Groups, direct and inherited through nesting" }),
    mcp_privileges: z.array(z.string()).openapi({ description: "MCP identifiers granted (* for all)" }),
    connection_privileges: z
      .record(z.string(), AccessLevelSchema)
      .openapi({ description: "Connection ID (0 = all) to access level", example: { "3": "read" } }),
    admin_permissions: z.array(z.string()),
  })
  .openapi("UserPrivilegesResponse");
