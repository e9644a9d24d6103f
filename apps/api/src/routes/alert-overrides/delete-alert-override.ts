import { deleteAlertOverride } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteAlertOverrideHandler = implement(deleteAlertOverride, async (c) => {
  const { scope, scopeId, ruleId } = c.req.valid("param");
  await c.get("services").alertOverrides.remove(c.get("access"), scope, scopeId, ruleId);
  return c.json({ status: "ok" }, 200);
});
