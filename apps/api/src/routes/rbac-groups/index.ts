import { addGroupMemberHandler } from "./add-group-member.js";
import { createGroupHandler } from "./create-group.js";
import { deleteGroupHandler } from "./delete-group.js";
import { getGroupHandler } from "./get-group.js";
import { getGroupConnectionPrivilegesHandler } from "./get-group-connection-privileges.js";
import { getGroupEffectivePrivilegesHandler } from "./get-group-effective-privileges.js";
import { getGroupMcpPrivilegesHandler } from "./get-group-mcp-privileges.js";
import { getGroupPermissionsHandler } from "./get-group-permissions.js";
import { grantGroupConnectionPrivilegeHandler } from "./grant-group-connection-privilege.js";
import { grantGroupMcpPrivilegeHandler } from "./grant-group-mcp-privilege.js";
import { grantGroupPermissionHandler } from "./grant-group-permission.js";
import { listGroupsHandler } from "./list-groups.js";
import { removeGroupMemberHandler } from "./remove-group-member.js";
import { revokeGroupConnectionPrivilegeHandler } from "./revoke-group-connection-privilege.js";
import { revokeGroupMcpPrivilegeHandler } from "./revoke-group-mcp-privilege.js";
import { revokeGroupPermissionHandler } from "./revoke-group-permission.js";
import { setGroupConnectionPrivilegesHandler } from "./set-group-connection-privileges.js";
import { setGroupMcpPrivilegesHandler } from "./set-group-mcp-privileges.js";
import { setGroupPermissionsHandler } from "./set-group-permissions.js";
import { updateGroupHandler } from "./update-group.js";

export const rbacGroupHandlers = [
  listGroupsHandler,
  createGroupHandler,
  getGroupHandler,
  updateGroupHandler,
  deleteGroupHandler,
  addGroupMemberHandler,
  removeGroupMemberHandler,
  getGroupEffectivePrivilegesHandler,
  getGroupMcpPrivilegesHandler,
  setGroupMcpPrivilegesHandler,
  grantGroupMcpPrivilegeHandler,
  revokeGroupMcpPrivilegeHandler,
  getGroupConnectionPrivilegesHandler,
  setGroupConnectionPrivilegesHandler,
  grantGroupConnectionPrivilegeHandler,
  revokeGroupConnectionPrivilegeHandler,
  getGroupPermissionsHandler,
  setGroupPermissionsHandler,
  grantGroupPermissionHandler,
  revokeGroupPermissionHandler,
];
