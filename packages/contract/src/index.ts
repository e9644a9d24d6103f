export * from "./common.js";
export * from "./document.js";
export * from "./groups/auth.js";
export * from "./groups/connections.js";
export * from "./groups/rbac.js";
export * from "./groups/server-info.js";
export * from "./groups/utilities.js";
export * from "./tags.js";
