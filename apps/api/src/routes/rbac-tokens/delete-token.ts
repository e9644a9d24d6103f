import { deleteToken } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteTokenHandler = implement(deleteToken, async (c) => {
  await c.get("services").rbac.tokens.delete(c.req.valid("param").id);
  return c.body(null, 204);
});
