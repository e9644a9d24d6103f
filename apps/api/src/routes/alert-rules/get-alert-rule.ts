import { getAlertRule } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getAlertRuleHandler = implement(getAlertRule, async (c) =>
  c.json(await c.get("services").alertRules.get(c.req.valid("param").id), 200),
);
