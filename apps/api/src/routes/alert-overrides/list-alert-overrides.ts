import { listAlertOverrides } from "@dbmon/contract";
import { presentOverriddenRule } from "../../alerting/overrides.js";
import { implement } from "../../http/operations.js";

export const listAlertOverridesHandler = implement(listAlertOverrides, async (c) => {
  const { scope, scopeId } = c.req.valid("param");
  const rules = await c.get("services").alertOverrides.list(c.get("access"), scope, scopeId);
  return c.json(rules.map(presentOverriddenRule), 200);
});
