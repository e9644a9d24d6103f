import { getAlertRuleHandler } from "./get-alert-rule.js";
import { listAlertRulesHandler } from "./list-alert-rules.js";
import { updateAlertRuleHandler } from "./update-alert-rule.js";

export const alertRulesHandlers = [listAlertRulesHandler, getAlertRuleHandler, updateAlertRuleHandler];
