import { listTokens } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentToken } from "./present.js";

export const listTokensHandler = implement(listTokens, async (c) => {
  const tokens = await c.get("services").rbac.tokens.list();
  return c.json({ tokens: tokens.map(presentToken) }, 200);
});
