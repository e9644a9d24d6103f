import { getAlertRule } from "./get-alert-rule.js";
import { listAlertRules } from "./list-alert-rules.js";
import { updateAlertRule } from "./update-alert-rule.js";

export * from "./get-alert-rule.js";
export * from "./list-alert-rules.js";
export * from "./schemas.js";
export * from "./update-alert-rule.js";

export const alertRulesOperations = [listAlertRules, getAlertRule, updateAlertRule] as const;
