import { z } from "@hono/zod-openapi";
import { idParam, message, TimestampSchema } from "../common.js";
import { AccessLevelSchema, ConnectionAccessSchema, McpPrivilegeSchema } from "../rbac-privileges/schemas.js";

export const RbacGroupSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    created_at: TimestampSchema,
    member_count: z.number().int().openapi({ description: "Direct members (users and groups)" }),
  })
  .openapi("RBACGroup");

export const GroupIdParamSchema = z.object({
  id: idParam("Invalid group ID").openapi({ param: { name: "id", in: "path" } }),
});

export const GroupCreateRequestSchema = z
  .object({
    name: z.string(message("Name is required")).min(1, message("Name is required")),
    description: z.string().optional(),
  })
  .openapi("GroupCreateRequest");

export const GroupConnectionPrivilegeSchema = z
  .object({
    id: z.number().int(),
    group_id: z.number().int(),
    connection_id: z.number().int().openapi({ description: "0 stands for every connection" }),
    access_level: AccessLevelSchema,
    created_at: TimestampSchema,
  })
  .openapi("GroupConnectionPrivilege");

export const RbacGroupDetailSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    created_at: TimestampSchema,
    user_members: z.array(z.string()).openapi({ description: "Usernames of the direct user members" }),
    group_members: z.array(z.string()).openapi({ description: "Names of the direct group members" }),
    mcp_privileges: z.array(McpPrivilegeSchema),
    connection_privileges: z.array(GroupConnectionPrivilegeSchema),
    admin_permissions: z.array(z.string()),
  })
  .openapi("RBACGroupDetail");

export const GroupUpdateRequestSchema = z
  .object({
    name: z.string().min(1, message("Name is required")).optional(),
    description: z.string().optional(),
  })
  .refine(
    (body) => body.name !== undefined || body.description !== undefined,
    message("At least one of name or description is required"),
  )
  .openapi("GroupUpdateRequest");

export const GroupMemberRequestSchema = z
  .object({
    user_id: z.number().int().positive().optional().openapi({ description: "User to add" }),
    group_id: z.number().int().positive().optional().openapi({ description: "Group to nest" }),
  })
  .refine(
    (body) => body.user_id !== undefined || body.group_id !== undefined,
    message("Either user_id or group_id is required"),
  )
  .refine(
    (body) => body.user_id === undefined || body.group_id === undefined,
    message("Only one of user_id or group_id may be specified"),
  )
  .openapi("GroupMemberRequest");

export const GroupEffectivePrivilegesSchema = z
  .object({
    group_name: z.string(),
    mcp_privileges: z.array(z.string()).openapi({ description: "MCP identifiers, * first when granted" }),
    connection_privileges: z.array(
      z
        .object({ connection_id: z.number().int(), access_level: AccessLevelSchema })
        .openapi("ConnectionAccessLevel"),
    ),
    admin_permissions: z.array(z.string()),
  })
  .openapi("GroupEffectivePrivileges");

export const GroupMcpPrivilegesSchema = z
  .object({
    group_id: z.number().int(),
    privileges: z
      .array(z.string())
      .openapi({ description: "MCP identifiers, or * for all", example: ["query_database"] }),
  })
  .openapi("GroupMCPPrivileges");

export const GroupConnectionPrivilegesSchema = z
  .object({ group_id: z.number().int(), connections: z.array(ConnectionAccessSchema) })
  .openapi("GroupConnectionPrivileges");

export const GroupPermissionsSchema = z
  .object({
    group_id: z.number().int(),
    permissions: z.array(z.string()).openapi({ example: ["manage_users"] }),
  })
  .openapi("GroupPermissionsResponse");
