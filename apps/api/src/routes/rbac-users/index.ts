import { createUserHandler } from "./create-user.js";
import { deleteUserHandler } from "./delete-user.js";
import { getUserPrivilegesHandler } from "./get-user-privileges.js";
import { listUsersHandler } from "./list-users.js";
import { updateUserHandler } from "./update-user.js";

export const rbacUserHandlers = [
  listUsersHandler,
  createUserHandler,
  updateUserHandler,
  deleteUserHandler,
  getUserPrivilegesHandler,
];
