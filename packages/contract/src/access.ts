/**
 * Who may call an operation, declared once in its contract file. The API's guard enforces it, the
 * OpenAPI description is written from it, and the document carries it as `x-dbmon-access` so tests
 * and the client can read it.
 */

/** Admin permissions a group can grant; `*` grants them all. */
export const adminPermissions = [
  "manage_connections",
  "manage_groups",
  "manage_permissions",
  "manage_users",
  "manage_token_scopes",
  "manage_blackouts",
  "manage_probes",
  "manage_alert_rules",
  "manage_notification_channels",
  "store_system_memory",
] as const;

export type AdminPermission = (typeof adminPermissions)[number];

export type AccessLevel = "read" | "read_write";

/** Where an operation finds the connection it acts on. */
export type ConnectionSource = { param: string } | { query: string };

/** What an operation needs beyond a valid credential; `{}` is any authenticated caller. */
export interface AccessRequirement {
  superuser?: true;
  permission?: AdminPermission;
  /** Access, at least at this level, to the connection named by a path or query parameter. */
  connection?: ConnectionSource & { level: AccessLevel };
  /**
   * The caller owns the connection in this path parameter or has manage_connections (writes to a
   * connection's own settings).
   */
  connectionOwner?: { param: string };
  /** Use of this registered MCP tool, resource or prompt. */
  mcp?: string;
  /** The 403 message, where the reference's text for the operation differs from the default. */
  message?: string;
  /**
   * What the operation decides for itself beyond the rule above, in a sentence of the
   * description (rows the caller cannot see are left out, say).
   */
  note?: string;
}

/** `public`: no credential needed. Anything else needs a valid session or service token. */
export type Access = "public" | AccessRequirement;

/** Whether a rule can refuse an authenticated caller (403). */
export function hasRequirement(access: Access): boolean {
  return (
    access !== "public" &&
    Boolean(
      access.superuser || access.permission || access.connection || access.connectionOwner || access.mcp,
    )
  );
}

/** The sentence the OpenAPI description gives the rule. */
export function describeAccess(access: Access): string {
  if (access === "public") {
    return "Access: public (no token needed).";
  }
  const needs: string[] = [];
  if (access.superuser) {
    needs.push("a superuser");
  }
  if (access.permission) {
    needs.push(`the \`${access.permission}\` permission`);
  }
  if (access.mcp) {
    needs.push(`use of the MCP item \`${access.mcp}\``);
  }
  if (access.connection) {
    const where =
      "param" in access.connection
        ? `path parameter \`${access.connection.param}\``
        : `query parameter \`${access.connection.query}\``;
    needs.push(
      `${access.connection.level === "read_write" ? "read-write" : "read"} access to the connection in the ${where}`,
    );
  }
  if (access.connectionOwner) {
    needs.push(
      `ownership of the connection in the path parameter \`${access.connectionOwner.param}\` or the \`manage_connections\` permission`,
    );
  }
  const rule = needs.length === 0 ? "any authenticated caller." : `requires ${needs.join(" and ")}.`;
  return access.note ? `Access: ${rule} ${access.note}` : `Access: ${rule}`;
}
