import { getTokenScope } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentScope } from "./present.js";

export const getTokenScopeHandler = implement(getTokenScope, async (c) => {
  const { id } = c.req.valid("param");
  const scope = await c.get("services").rbac.tokens.scope(id);
  return c.json({ token_id: id, ...presentScope(scope) }, 200);
});
