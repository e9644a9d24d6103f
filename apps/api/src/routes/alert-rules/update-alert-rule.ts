import { updateAlertRule } from "@dbmon/contract";
import { presentRule } from "../../alerting/rules.js";
import { implement } from "../../http/operations.js";

export const updateAlertRuleHandler = implement(updateAlertRule, async (c) => {
  const body = c.req.valid("json");
  const change = {
    operator: body.default_operator,
    threshold: body.default_threshold,
    severity: body.default_severity,
    enabled: body.default_enabled,
    durationSeconds: body.default_duration_seconds,
  };
  return c.json(presentRule(await c.get("services").alertRules.update(c.req.valid("param").id, change)), 200);
});
