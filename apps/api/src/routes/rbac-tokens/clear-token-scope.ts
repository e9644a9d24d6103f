import { clearTokenScope } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const clearTokenScopeHandler = implement(clearTokenScope, async (c) => {
  await c.get("services").rbac.tokens.clearScope(c.get("access"), c.req.valid("param").id);
  return c.body(null, 204);
});
