import { getAlertOverrideContext } from "@dbmon/contract";
import { presentOverrideContext } from "../../alerting/overrides.js";
import { implement } from "../../http/operations.js";

export const getAlertOverrideContextHandler = implement(getAlertOverrideContext, async (c) => {
  const { connectionId, ruleId } = c.req.valid("param");
  const context = await c.get("services").alertOverrides.context(c.get("access"), connectionId, ruleId);
  return c.json(presentOverrideContext(context), 200);
});
