import { upsertAlertOverride } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const upsertAlertOverrideHandler = implement(upsertAlertOverride, async (c) => {
  const { scope, scopeId, ruleId } = c.req.valid("param");
  const { duration_seconds, ...override } = c.req.valid("json");
  await c.get("services").alertOverrides.upsert(c.get("access"), scope, scopeId, ruleId, {
    ...override,
    durationSeconds: duration_seconds ?? null,
  });
  return c.json({ status: "ok" }, 200);
});
