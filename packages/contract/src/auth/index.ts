import { capabilities } from "./capabilities.js";
import { login } from "./login.js";
import { logout } from "./logout.js";
import { userInfo } from "./user-info.js";

export * from "./capabilities.js";
export * from "./login.js";
export * from "./logout.js";
export * from "./schemas.js";
export * from "./user-info.js";

export const authOperations = [login, logout, userInfo, capabilities] as const;
