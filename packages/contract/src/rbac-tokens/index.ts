import { clearTokenScope } from "./clear-token-scope.js";
import { createToken } from "./create-token.js";
import { deleteToken } from "./delete-token.js";
import { getTokenScope } from "./get-token-scope.js";
import { listTokens } from "./list-tokens.js";
import { setTokenScope } from "./set-token-scope.js";

export * from "./clear-token-scope.js";
export * from "./create-token.js";
export * from "./delete-token.js";
export * from "./get-token-scope.js";
export * from "./list-tokens.js";
export * from "./schemas.js";
export * from "./set-token-scope.js";

export const rbacTokenOperations = [
  listTokens,
  createToken,
  deleteToken,
  getTokenScope,
  setTokenScope,
  clearTokenScope,
] as const;
