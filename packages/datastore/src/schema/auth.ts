import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { nowOnInsert, rowId, timestamptz } from "./columns.js";

/** Accounts that log in (or, as service accounts, only own service tokens). */
export const users = pgTable("users", {
  id: rowId(),
  username: text().notNull().unique(),
  /** Argon2id hash (PHC string); null for service accounts, which never log in with a password. */
  passwordHash: text(),
  displayName: text().notNull().default(""),
  email: text().notNull().default(""),
  annotation: text().notNull().default(""),
  enabled: boolean().notNull().default(true),
  isSuperuser: boolean().notNull().default(false),
  isServiceAccount: boolean().notNull().default(false),
  failedAttempts: integer().notNull().default(0),
  lastLogin: timestamptz(),
  createdAt: nowOnInsert(),
});

/** Login sessions. Only the SHA-256 of the token is kept, so a datastore leak yields no usable token. */
export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: nowOnInsert(),
    expiresAt: timestamptz().notNull(),
  },
  (t) => [index().on(t.userId)],
);

/** Service tokens for programmatic access; SHA-256 at rest like sessions. */
export const serviceTokens = pgTable(
  "service_tokens",
  {
    id: rowId(),
    tokenHash: text().notNull().unique(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    annotation: text().notNull().default(""),
    expiresAt: timestamptz(),
    createdAt: nowOnInsert(),
  },
  (t) => [index().on(t.userId)],
);

export const rbacGroups = pgTable("rbac_groups", {
  id: rowId(),
  name: text().notNull().unique(),
  description: text().notNull().default(""),
  createdAt: nowOnInsert(),
});

/** A row makes one user or one group a member of a parent group. */
export const groupMemberships = pgTable(
  "group_memberships",
  {
    id: rowId(),
    parentGroupId: integer()
      .notNull()
      .references(() => rbacGroups.id, { onDelete: "cascade" }),
    memberUserId: integer().references(() => users.id, { onDelete: "cascade" }),
    memberGroupId: integer().references(() => rbacGroups.id, { onDelete: "cascade" }),
    createdAt: nowOnInsert(),
  },
  (t) => [
    check("group_memberships_one_member", sql`num_nonnulls(${t.memberUserId}, ${t.memberGroupId}) = 1`),
    check("group_memberships_not_self", sql`${t.memberGroupId} is distinct from ${t.parentGroupId}`),
    uniqueIndex().on(t.parentGroupId, t.memberUserId),
    uniqueIndex().on(t.parentGroupId, t.memberGroupId),
    index().on(t.memberUserId),
    index().on(t.memberGroupId),
  ],
);

/** MCP tools, resources and prompts that can be granted; registered at start-up. */
export const mcpPrivilegeIdentifiers = pgTable("mcp_privilege_identifiers", {
  id: rowId(),
  identifier: text().notNull().unique(),
  itemType: text().notNull(),
  description: text().notNull().default(""),
  isPublic: boolean().notNull().default(false),
  createdAt: nowOnInsert(),
});

/** MCP grants of a group: a registered identifier, or `*` for all of them. */
export const groupMcpPrivileges = pgTable(
  "group_mcp_privileges",
  {
    groupId: integer()
      .notNull()
      .references(() => rbacGroups.id, { onDelete: "cascade" }),
    identifier: text().notNull(),
    createdAt: nowOnInsert(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.identifier] })],
);

/** Connection grants of a group; connection 0 means every connection. */
export const groupConnectionPrivileges = pgTable(
  "group_connection_privileges",
  {
    id: rowId(),
    groupId: integer()
      .notNull()
      .references(() => rbacGroups.id, { onDelete: "cascade" }),
    connectionId: integer().notNull(),
    accessLevel: text().notNull(),
    createdAt: nowOnInsert(),
  },
  (t) => [
    uniqueIndex().on(t.groupId, t.connectionId),
    check("group_connection_privileges_level", sql`${t.accessLevel} in ('read', 'read_write')`),
    check("group_connection_privileges_connection", sql`${t.connectionId} >= 0`),
  ],
);

/** Admin permissions of a group (names checked by the API; `*` is all). */
export const groupAdminPermissions = pgTable(
  "group_admin_permissions",
  {
    groupId: integer()
      .notNull()
      .references(() => rbacGroups.id, { onDelete: "cascade" }),
    permission: text().notNull(),
    createdAt: nowOnInsert(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.permission] })],
);

/** Connection scope of a service token; no rows means the token is not narrowed here. */
export const tokenConnectionScopes = pgTable(
  "token_connection_scopes",
  {
    tokenId: integer()
      .notNull()
      .references(() => serviceTokens.id, { onDelete: "cascade" }),
    connectionId: integer().notNull(),
    accessLevel: text().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tokenId, t.connectionId] }),
    check("token_connection_scopes_level", sql`${t.accessLevel} in ('read', 'read_write')`),
  ],
);

export const tokenMcpScopes = pgTable(
  "token_mcp_scopes",
  {
    tokenId: integer()
      .notNull()
      .references(() => serviceTokens.id, { onDelete: "cascade" }),
    identifier: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.tokenId, t.identifier] })],
);

export const tokenAdminScopes = pgTable(
  "token_admin_scopes",
  {
    tokenId: integer()
      .notNull()
      .references(() => serviceTokens.id, { onDelete: "cascade" }),
    permission: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.tokenId, t.permission] })],
);

/**
 * Fixed-window counters of the login throttle, shared by every API instance on the datastore.
 * Keys name the counter and the client (`requests:<ip>`, `failures:<ip>`).
 */
export const loginThrottle = pgTable("login_throttle", {
  key: text().primaryKey(),
  windowStart: timestamptz().notNull(),
  count: integer().notNull(),
});
