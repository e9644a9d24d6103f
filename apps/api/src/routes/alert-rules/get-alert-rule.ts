import { getAlertRule } from "@dbmon/contract";
import { presentRule } from "../../alerting/rules.js";
import { implement } from "../../http/operations.js";

export const getAlertRuleHandler = implement(getAlertRule, async (c) =>
  c.json(presentRule(await c.get("services").alertRules.require(c.req.valid("param").id)), 200),
);
