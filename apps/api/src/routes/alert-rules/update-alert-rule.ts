import { updateAlertRule } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const updateAlertRuleHandler = implement(updateAlertRule, async (c) =>
  c.json(await c.get("services").alertRules.update(c.req.valid("param").id, c.req.valid("json")), 200),
);
