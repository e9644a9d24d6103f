import { listAlertOverrides } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listAlertOverridesHandler = implement(listAlertOverrides, async (c) => {
  const { scope, scopeId } = c.req.valid("param");
  return c.json(await c.get("services").alertOverrides.list(c.get("access"), scope, scopeId), 200);
});
