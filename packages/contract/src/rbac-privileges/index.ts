import { listMcpPrivileges } from "./list-mcp-privileges.js";

export * from "./list-mcp-privileges.js";
export * from "./schemas.js";

export const rbacPrivilegeOperations = [listMcpPrivileges] as const;
