import { createUser } from "./create-user.js";
import { deleteUser } from "./delete-user.js";
import { getUserPrivileges } from "./get-user-privileges.js";
import { listUsers } from "./list-users.js";
import { updateUser } from "./update-user.js";

export * from "./create-user.js";
export * from "./delete-user.js";
export * from "./get-user-privileges.js";
export * from "./list-users.js";
export * from "./schemas.js";
export * from "./update-user.js";

export const rbacUserOperations = [listUsers, createUser, updateUser, deleteUser, getUserPrivileges] as const;
