import { addGroupMember } from "./add-group-member.js";
import { createGroup } from "./create-group.js";
import { deleteGroup } from "./delete-group.js";
import { getGroup } from "./get-group.js";
import { getGroupConnectionPrivileges } from "./get-group-connection-privileges.js";
import { getGroupEffectivePrivileges } from "./get-group-effective-privileges.js";
import { getGroupMcpPrivileges } from "./get-group-mcp-privileges.js";
import { getGroupPermissions } from "./get-group-permissions.js";
import { grantGroupConnectionPrivilege } from "./grant-group-connection-privilege.js";
import { grantGroupMcpPrivilege } from "./grant-group-mcp-privilege.js";
import { grantGroupPermission } from "./grant-group-permission.js";
import { listGroups } from "./list-groups.js";
import { removeGroupMember } from "./remove-group-member.js";
import { revokeGroupConnectionPrivilege } from "./revoke-group-connection-privilege.js";
import { revokeGroupMcpPrivilege } from "./revoke-group-mcp-privilege.js";
import { revokeGroupPermission } from "./revoke-group-permission.js";
import { setGroupConnectionPrivileges } from "./set-group-connection-privileges.js";
import { setGroupMcpPrivileges } from "./set-group-mcp-privileges.js";
import { setGroupPermissions } from "./set-group-permissions.js";
import { updateGroup } from "./update-group.js";

export * from "./add-group-member.js";
export * from "./create-group.js";
export * from "./delete-group.js";
export * from "./get-group.js";
export * from "./get-group-connection-privileges.js";
export * from "./get-group-effective-privileges.js";
export * from "./get-group-mcp-privileges.js";
export * from "./get-group-permissions.js";
export * from "./grant-group-connection-privilege.js";
export * from "./grant-group-mcp-privilege.js";
export * from "./grant-group-permission.js";
export * from "./list-groups.js";
export * from "./remove-group-member.js";
export * from "./revoke-group-connection-privilege.js";
export * from "./revoke-group-mcp-privilege.js";
export * from "./revoke-group-permission.js";
export * from "./schemas.js";
export * from "./set-group-connection-privileges.js";
export * from "./set-group-mcp-privileges.js";
export * from "./set-group-permissions.js";
export * from "./update-group.js";

export const rbacGroupOperations = [
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
] as const;
