import { capabilitiesHandler } from "./capabilities.js";
import { loginHandler } from "./login.js";
import { logoutHandler } from "./logout.js";
import { userInfoHandler } from "./user-info.js";

export const authHandlers = [loginHandler, logoutHandler, userInfoHandler, capabilitiesHandler];
