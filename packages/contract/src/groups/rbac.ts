import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, errorResponses, idParam, jsonResponse, message, TimestampSchema } from "../common.js";
import { tags } from "../tags.js";

const tag = [tags.rbac.name];

export const AccessLevelSchema = z
  .enum(["read", "read_write"], message("access_level must be 'read' or 'read_write'"))
  .openapi({ description: "read, or read_write", example: "read" });

const ConnectionIdSchema = z
  .number(message("Valid connection_id is required"))
  .int(message("Valid connection_id is required"))
  .min(0, message("Valid connection_id is required"))
  .openapi({ description: "Connection ID; 0 stands for every connection", example: 3 });

export const ConnectionAccessSchema = z
  .object({ connection_id: ConnectionIdSchema, access_level: AccessLevelSchema })
  .openapi("ConnectionAccess");

const noContent = (description: string) => ({ description }) as const;

// ---------------------------------------------------------------- users

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

const UserIdParams = z.object({
  id: idParam("Invalid user ID").openapi({ param: { name: "id", in: "path" } }),
});

export const listUsers = createRoute({
  method: "get",
  path: "/api/v1/rbac/users",
  operationId: "listUsers",
  summary: "List users",
  description: "All users, ordered by username. Requires manage_users.",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(z.object({ users: z.array(RbacUserSchema) }).openapi("UserList"), "User list"),
    ...errorResponses(401, 403),
  },
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

export const MessageSchema = z.object({ message: z.string() }).openapi("Message");

export const createUser = createRoute({
  method: "post",
  path: "/api/v1/rbac/users",
  operationId: "createUser",
  summary: "Create a user",
  description:
    "Requires manage_users (and superuser to create a superuser). Passwords need at least 12 " +
    "characters and must not be a common password.",
  tags: tag,
  security: authenticated,
  request: { body: { required: true, content: { "application/json": { schema: UserCreateRequestSchema } } } },
  responses: {
    201: jsonResponse(
      z
        .object({ message: z.string().openapi({ example: "User created" }), id: z.number().int() })
        .openapi("UserCreated"),
      "User created",
    ),
    ...errorResponses(400, 401, 403, 409),
  },
});

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

export const updateUser = createRoute({
  method: "put",
  path: "/api/v1/rbac/users/{id}",
  operationId: "updateUser",
  summary: "Update a user",
  description:
    "Changes the given fields at once. Requires manage_users; superuser accounts only by superusers.",
  tags: tag,
  security: authenticated,
  request: {
    params: UserIdParams,
    body: { required: true, content: { "application/json": { schema: UserUpdateRequestSchema } } },
  },
  responses: {
    200: jsonResponse(MessageSchema, "User updated"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const deleteUser = createRoute({
  method: "delete",
  path: "/api/v1/rbac/users/{id}",
  operationId: "deleteUser",
  summary: "Delete a user",
  description: "Deletes the user with its sessions, tokens and memberships. Requires manage_users.",
  tags: tag,
  security: authenticated,
  request: { params: UserIdParams },
  responses: {
    204: noContent("User deleted"),
    ...errorResponses(400, 401, 403, 404),
  },
});

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

export const getUserPrivileges = createRoute({
  method: "get",
  path: "/api/v1/rbac/users/{id}/privileges",
  operationId: "getUserPrivileges",
  summary: "Effective privileges of a user",
  tags: tag,
  security: authenticated,
  request: { params: UserIdParams },
  responses: {
    200: jsonResponse(UserPrivilegesSchema, "User privilege details"),
    ...errorResponses(400, 401, 403, 404),
  },
});

// ---------------------------------------------------------------- groups

export const RbacGroupSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    created_at: TimestampSchema,
    member_count: z.number().int().openapi({ description: "Direct members (users and groups)" }),
  })
  .openapi("RBACGroup");

const GroupIdParams = z.object({
  id: idParam("Invalid group ID").openapi({ param: { name: "id", in: "path" } }),
});

export const listGroups = createRoute({
  method: "get",
  path: "/api/v1/rbac/groups",
  operationId: "listGroups",
  summary: "List groups",
  description: "All groups with their member counts. Requires manage_groups.",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(z.object({ groups: z.array(RbacGroupSchema) }).openapi("GroupList"), "Group list"),
    ...errorResponses(401, 403),
  },
});

export const GroupCreateRequestSchema = z
  .object({
    name: z.string(message("Name is required")).min(1, message("Name is required")),
    description: z.string().optional(),
  })
  .openapi("GroupCreateRequest");

export const createGroup = createRoute({
  method: "post",
  path: "/api/v1/rbac/groups",
  operationId: "createGroup",
  summary: "Create a group",
  tags: tag,
  security: authenticated,
  request: {
    body: { required: true, content: { "application/json": { schema: GroupCreateRequestSchema } } },
  },
  responses: {
    201: jsonResponse(
      z.object({ id: z.number().int(), name: z.string() }).openapi("GroupCreated"),
      "Group created",
    ),
    ...errorResponses(400, 401, 403, 409),
  },
});

export const McpPrivilegeSchema = z
  .object({
    id: z.number().int().openapi({ description: "Identifier ID; 0 is the wildcard" }),
    identifier: z.string().openapi({ example: "query_database" }),
    item_type: z.enum(["tool", "resource", "prompt"]),
    description: z.string(),
    is_public: z.boolean().openapi({ description: "Usable by every authenticated caller" }),
    created_at: TimestampSchema,
  })
  .openapi("MCPPrivilege");

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

export const getGroup = createRoute({
  method: "get",
  path: "/api/v1/rbac/groups/{id}",
  operationId: "getGroup",
  summary: "Get a group",
  description: "The group with its direct members and its own grants. Requires manage_groups.",
  tags: tag,
  security: authenticated,
  request: { params: GroupIdParams },
  responses: {
    200: jsonResponse(RbacGroupDetailSchema, "Group details"),
    ...errorResponses(400, 401, 403, 404),
  },
});

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

export const updateGroup = createRoute({
  method: "put",
  path: "/api/v1/rbac/groups/{id}",
  operationId: "updateGroup",
  summary: "Update a group",
  description: "Changes the name and/or description given. Requires manage_groups.",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    body: { required: true, content: { "application/json": { schema: GroupUpdateRequestSchema } } },
  },
  responses: {
    200: jsonResponse(RbacGroupSchema, "Updated group"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const deleteGroup = createRoute({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}",
  operationId: "deleteGroup",
  summary: "Delete a group",
  description: "Deletes the group, its memberships and grants. Requires manage_groups.",
  tags: tag,
  security: authenticated,
  request: { params: GroupIdParams },
  responses: {
    204: noContent("Group deleted"),
    ...errorResponses(400, 401, 403, 404),
  },
});

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

export const addGroupMember = createRoute({
  method: "post",
  path: "/api/v1/rbac/groups/{id}/members",
  operationId: "addGroupMember",
  summary: "Add a group member",
  description:
    "Adds a user, or nests a group (whose members then inherit this group's grants). A group " +
    "cannot contain itself, directly or through other groups. Requires manage_groups.",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    body: { required: true, content: { "application/json": { schema: GroupMemberRequestSchema } } },
  },
  responses: {
    204: noContent("Member added"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const removeGroupMember = createRoute({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}/members/{type}/{memberId}",
  operationId: "removeGroupMember",
  summary: "Remove a group member",
  tags: tag,
  security: authenticated,
  request: {
    params: z.object({
      id: idParam("Invalid group ID").openapi({ param: { name: "id", in: "path" } }),
      type: z
        .enum(["user", "group"], message("Invalid member type: must be 'user' or 'group'"))
        .openapi({ param: { name: "type", in: "path" } }),
      memberId: idParam("Invalid member ID").openapi({ param: { name: "memberId", in: "path" } }),
    }),
  },
  responses: {
    204: noContent("Member removed"),
    ...errorResponses(400, 401, 403, 404),
  },
});

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

export const getGroupEffectivePrivileges = createRoute({
  method: "get",
  path: "/api/v1/rbac/groups/{id}/effective-privileges",
  operationId: "getGroupEffectivePrivileges",
  summary: "Group effective privileges",
  description:
    "The group's own grants plus those of every group it is nested in. Requires manage_permissions.",
  tags: tag,
  security: authenticated,
  request: { params: GroupIdParams },
  responses: {
    200: jsonResponse(GroupEffectivePrivilegesSchema, "Effective privilege details"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const GroupMcpPrivilegesSchema = z
  .object({
    group_id: z.number().int(),
    privileges: z
      .array(z.string())
      .openapi({ description: "MCP identifiers, or * for all", example: ["query_database"] }),
  })
  .openapi("GroupMCPPrivileges");

export const getGroupMcpPrivileges = createRoute({
  method: "get",
  path: "/api/v1/rbac/groups/{id}/privileges/mcp",
  operationId: "getGroupMCPPrivileges",
  summary: "Get group MCP tool privileges",
  tags: tag,
  security: authenticated,
  request: { params: GroupIdParams },
  responses: {
    200: jsonResponse(GroupMcpPrivilegesSchema, "MCP privileges"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const setGroupMcpPrivileges = createRoute({
  method: "put",
  path: "/api/v1/rbac/groups/{id}/privileges/mcp",
  operationId: "setGroupMCPPrivileges",
  summary: "Set group MCP tool privileges",
  description:
    "Replaces the whole set at once; unknown identifiers are refused. Requires manage_permissions.",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              privileges: z.array(z.string(), message("privileges must be an array of identifiers")),
            })
            .openapi("GroupMCPPrivilegesRequest"),
        },
      },
    },
  },
  responses: {
    200: jsonResponse(GroupMcpPrivilegesSchema, "The new set"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const grantGroupMcpPrivilege = createRoute({
  method: "post",
  path: "/api/v1/rbac/groups/{id}/privileges/mcp",
  operationId: "grantGroupMCPPrivilege",
  summary: "Grant one MCP privilege to a group",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              privilege: z
                .string(message("Privilege is required"))
                .min(1, message("Privilege is required"))
                .openapi({ description: "An MCP identifier, or * for all", example: "query_database" }),
            })
            .openapi("GroupMCPPrivilegeGrant"),
        },
      },
    },
  },
  responses: {
    204: noContent("Privilege granted"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const revokeGroupMcpPrivilege = createRoute({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}/privileges/mcp",
  operationId: "revokeGroupMCPPrivilege",
  summary: "Revoke one MCP privilege from a group",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    query: z.object({
      name: z
        .string(message("Query parameter 'name' is required"))
        .min(1, message("Query parameter 'name' is required"))
        .openapi({ description: "The identifier to revoke" }),
    }),
  },
  responses: {
    204: noContent("Privilege revoked"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const GroupConnectionPrivilegesSchema = z
  .object({ group_id: z.number().int(), connections: z.array(ConnectionAccessSchema) })
  .openapi("GroupConnectionPrivileges");

export const getGroupConnectionPrivileges = createRoute({
  method: "get",
  path: "/api/v1/rbac/groups/{id}/privileges/connections",
  operationId: "getGroupConnectionPrivileges",
  summary: "Get group connection privileges",
  tags: tag,
  security: authenticated,
  request: { params: GroupIdParams },
  responses: {
    200: jsonResponse(GroupConnectionPrivilegesSchema, "Connection privileges"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const setGroupConnectionPrivileges = createRoute({
  method: "put",
  path: "/api/v1/rbac/groups/{id}/privileges/connections",
  operationId: "setGroupConnectionPrivileges",
  summary: "Set group connection privileges",
  description: "Replaces the whole set at once (connection 0 = all). Requires manage_permissions.",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              connections: z.array(ConnectionAccessSchema, message("connections must be an array")),
            })
            .openapi("GroupConnectionPrivilegesRequest"),
        },
      },
    },
  },
  responses: {
    200: jsonResponse(GroupConnectionPrivilegesSchema, "The new set"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const grantGroupConnectionPrivilege = createRoute({
  method: "post",
  path: "/api/v1/rbac/groups/{id}/privileges/connections",
  operationId: "grantGroupConnectionPrivilege",
  summary: "Grant access to one connection to a group",
  description: "Sets the group's level on the connection (0 = all). Requires manage_permissions.",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    body: { required: true, content: { "application/json": { schema: ConnectionAccessSchema } } },
  },
  responses: {
    204: noContent("Privilege granted"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const revokeGroupConnectionPrivilege = createRoute({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}/privileges/connections/{connectionId}",
  operationId: "revokeGroupConnectionPrivilege",
  summary: "Revoke a group's access to one connection",
  tags: tag,
  security: authenticated,
  request: {
    params: z.object({
      id: idParam("Invalid group ID").openapi({ param: { name: "id", in: "path" } }),
      connectionId: idParam("Invalid connection ID", 0).openapi({
        param: { name: "connectionId", in: "path" },
      }),
    }),
  },
  responses: {
    204: noContent("Privilege revoked"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const GroupPermissionsSchema = z
  .object({
    group_id: z.number().int(),
    permissions: z.array(z.string()).openapi({ example: ["manage_users"] }),
  })
  .openapi("GroupPermissionsResponse");

export const getGroupPermissions = createRoute({
  method: "get",
  path: "/api/v1/rbac/groups/{id}/permissions",
  operationId: "getGroupPermissions",
  summary: "Get group admin permissions",
  description: "Superusers only.",
  tags: tag,
  security: authenticated,
  request: { params: GroupIdParams },
  responses: {
    200: jsonResponse(GroupPermissionsSchema, "Group admin permissions"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const setGroupPermissions = createRoute({
  method: "put",
  path: "/api/v1/rbac/groups/{id}/permissions",
  operationId: "setGroupPermissions",
  summary: "Set group admin permissions",
  description: "Replaces the whole set at once; unknown names are refused. Superusers only.",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({ permissions: z.array(z.string(), message("permissions must be an array of names")) })
            .openapi("GroupPermissionsRequest"),
        },
      },
    },
  },
  responses: {
    200: jsonResponse(GroupPermissionsSchema, "The new set"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const grantGroupPermission = createRoute({
  method: "post",
  path: "/api/v1/rbac/groups/{id}/permissions",
  operationId: "grantGroupPermission",
  summary: "Grant one admin permission to a group",
  description: "Superusers only.",
  tags: tag,
  security: authenticated,
  request: {
    params: GroupIdParams,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              permission: z
                .string(message("Permission is required"))
                .min(1, message("Permission is required"))
                .openapi({ example: "manage_blackouts" }),
            })
            .openapi("GroupPermissionGrant"),
        },
      },
    },
  },
  responses: {
    204: noContent("Permission granted"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const revokeGroupPermission = createRoute({
  method: "delete",
  path: "/api/v1/rbac/groups/{id}/permissions/{permission}",
  operationId: "revokeGroupPermission",
  summary: "Revoke one admin permission from a group",
  description: "Superusers only.",
  tags: tag,
  security: authenticated,
  request: {
    params: z.object({
      id: idParam("Invalid group ID").openapi({ param: { name: "id", in: "path" } }),
      permission: z
        .string()
        .min(1)
        .openapi({ param: { name: "permission", in: "path" } }),
    }),
  },
  responses: {
    204: noContent("Permission revoked"),
    ...errorResponses(400, 401, 403, 404),
  },
});

// ---------------------------------------------------------------- tokens

const TokenIdParams = z.object({
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

export const listTokens = createRoute({
  method: "get",
  path: "/api/v1/rbac/tokens",
  operationId: "listTokens",
  summary: "List API tokens",
  description: "Service tokens of every user, newest first. Requires manage_token_scopes.",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(z.object({ tokens: z.array(RbacTokenSchema) }).openapi("TokenList"), "Token list"),
    ...errorResponses(401, 403),
  },
});

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

export const createToken = createRoute({
  method: "post",
  path: "/api/v1/rbac/tokens",
  operationId: "createToken",
  summary: "Create an API token",
  description:
    "Creates a service token for an enabled user. Requires manage_token_scopes; tokens of superusers " +
    "only by superusers.",
  tags: tag,
  security: authenticated,
  request: {
    body: { required: true, content: { "application/json": { schema: TokenCreateRequestSchema } } },
  },
  responses: {
    201: jsonResponse(TokenCreateResponseSchema, "Token created with its raw value"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const deleteToken = createRoute({
  method: "delete",
  path: "/api/v1/rbac/tokens/{id}",
  operationId: "deleteToken",
  summary: "Delete an API token",
  tags: tag,
  security: authenticated,
  request: { params: TokenIdParams },
  responses: {
    204: noContent("Token deleted"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const TokenScopeSchema = z
  .object({ token_id: z.number().int() })
  .extend(TokenScopeSummarySchema.shape)
  .openapi("TokenScopeResponse");

export const getTokenScope = createRoute({
  method: "get",
  path: "/api/v1/rbac/tokens/{id}/scope",
  operationId: "getTokenScope",
  summary: "Get a token scope",
  tags: tag,
  security: authenticated,
  request: { params: TokenIdParams },
  responses: {
    200: jsonResponse(TokenScopeSchema, "Token scope details"),
    ...errorResponses(400, 401, 403, 404),
  },
});

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

export const setTokenScope = createRoute({
  method: "put",
  path: "/api/v1/rbac/tokens/{id}/scope",
  operationId: "setTokenScope",
  summary: "Set a token scope",
  description:
    "Each list given replaces that part of the scope (an empty list lifts it); lists not given stay. " +
    "A scope only narrows what the owner may do, for superusers' tokens too.",
  tags: tag,
  security: authenticated,
  request: {
    params: TokenIdParams,
    body: { required: true, content: { "application/json": { schema: TokenScopeRequestSchema } } },
  },
  responses: {
    204: noContent("Scope updated"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const clearTokenScope = createRoute({
  method: "delete",
  path: "/api/v1/rbac/tokens/{id}/scope",
  operationId: "clearTokenScope",
  summary: "Clear a token scope",
  tags: tag,
  security: authenticated,
  request: { params: TokenIdParams },
  responses: {
    204: noContent("Scope cleared"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const listMcpPrivileges = createRoute({
  method: "get",
  path: "/api/v1/rbac/privileges/mcp",
  operationId: "listMCPPrivileges",
  summary: "List MCP privilege identifiers",
  description: "Every registered MCP tool, resource and prompt. Requires manage_permissions.",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(z.array(McpPrivilegeSchema).openapi("MCPPrivilegeList"), "MCP privilege identifiers"),
    ...errorResponses(401, 403),
  },
});

export const rbacRoutes = {
  listUsers,
  createUser,
  updateUser,
  deleteUser,
  getUserPrivileges,
  listGroups,
  createGroup,
  getGroup,
  updateGroup,
  deleteGroup,
  addGroupMember,
  removeGroupMember,
  getGroupEffectivePrivileges,
  getGroupMcpPrivileges,
  setGroupMcpPrivileges,
  grantGroupMcpPrivilege,
  revokeGroupMcpPrivilege,
  getGroupConnectionPrivileges,
  setGroupConnectionPrivileges,
  grantGroupConnectionPrivilege,
  revokeGroupConnectionPrivilege,
  getGroupPermissions,
  setGroupPermissions,
  grantGroupPermission,
  revokeGroupPermission,
  listTokens,
  createToken,
  deleteToken,
  getTokenScope,
  setTokenScope,
  clearTokenScope,
  listMcpPrivileges,
} as const;
