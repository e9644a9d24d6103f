import { upsertAlertOverride } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const upsertAlertOverrideHandler = implement(upsertAlertOverride, async (c) => {
  const { scope, scopeId, ruleId } = c.req.valid("param");
  await c.get("services").alertOverrides.upsert(c.get("access"), scope, scopeId, ruleId, c.req.valid("json"));
  return c.json({ status: "ok" }, 200);
});
