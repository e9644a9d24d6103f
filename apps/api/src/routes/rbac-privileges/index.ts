import { listMcpPrivilegesHandler } from "./list-mcp-privileges.js";

export const rbacPrivilegeHandlers = [listMcpPrivilegesHandler];
