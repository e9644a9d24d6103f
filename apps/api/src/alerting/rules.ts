import { iso } from "./time.js";

export interface RuleRow {
  id: number;
  name: string;
  description: string;
  category: string;
  metric_name: string;
  metric_unit: string | null;
  default_operator: string;
  default_threshold: number;
  default_severity: "info" | "warning" | "critical";
  default_enabled: boolean;
  default_duration_seconds: number;
  required_extension: string | null;
  is_built_in: boolean;
  created_at: string | Date;
}

/** What a rule is and does by default, as both the rule and the override listings show it. */
export function ruleDefaults(row: RuleRow) {
  return {
    name: row.name,
    description: row.description,
    category: row.category,
    metric_name: row.metric_name,
    metric_unit: row.metric_unit,
    default_operator: row.default_operator,
    default_threshold: row.default_threshold,
    default_severity: row.default_severity,
    default_enabled: row.default_enabled,
    default_duration_seconds: row.default_duration_seconds,
  };
}

export function presentRule(row: RuleRow) {
  return {
    id: row.id,
    ...ruleDefaults(row),
    required_extension: row.required_extension,
    is_built_in: row.is_built_in,
    created_at: iso(row.created_at),
  };
}

export const manageRulesRefusal = "Permission denied: you do not have permission to manage alert rules";
