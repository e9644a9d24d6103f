import { clearTokenScopeHandler } from "./clear-token-scope.js";
import { createTokenHandler } from "./create-token.js";
import { deleteTokenHandler } from "./delete-token.js";
import { getTokenScopeHandler } from "./get-token-scope.js";
import { listTokensHandler } from "./list-tokens.js";
import { setTokenScopeHandler } from "./set-token-scope.js";

export const rbacTokenHandlers = [
  listTokensHandler,
  createTokenHandler,
  deleteTokenHandler,
  getTokenScopeHandler,
  setTokenScopeHandler,
  clearTokenScopeHandler,
];
