import { type Datastore, schema } from "@dbmon/datastore";
import { and, asc, count, eq } from "drizzle-orm";
import { NotFound } from "../errors.js";
import { type Page, withTotal } from "../paging.js";
import { iso } from "./time.js";

const { alertRules } = schema;

export type AlertRuleRow = typeof alertRules.$inferSelect;

type Severity = "info" | "warning" | "critical";

/** Which rules to list; every field narrows, an absent one does not. */
export interface RuleFilter {
  category?: string | undefined;
  /** Only the rules (not) enabled: by default, or on a scope with its overrides applied. */
  enabled?: boolean | undefined;
}

/** Rules in the order every listing shows them: by category and name. */
export const ruleOrder = [asc(alertRules.category), asc(alertRules.name), asc(alertRules.id)];

/** Changes to a rule's defaults; what is not given stays. */
export interface RuleDefaultsChange {
  operator?: string | undefined;
  threshold?: number | undefined;
  severity?: string | undefined;
  enabled?: boolean | undefined;
  durationSeconds?: number | undefined;
}

/** The threshold rules and their defaults. */
export class AlertRuleService {
  constructor(private readonly datastore: Datastore) {}

  /** Every rule, by category and name. */
  async list(): Promise<AlertRuleRow[]> {
    return this.datastore.db
      .select()
      .from(alertRules)
      .orderBy(...ruleOrder);
  }

  /**
   * Rules matching the filter (`enabled` by their defaults), by category and name: one page,
   * filtered and paged in SQL, and the total of all that match.
   */
  async find(filter: RuleFilter, { limit, offset }: Page): Promise<{ rules: AlertRuleRow[]; total: number }> {
    const where = and(
      filter.category === undefined ? undefined : eq(alertRules.category, filter.category),
      filter.enabled === undefined ? undefined : eq(alertRules.defaultEnabled, filter.enabled),
    );
    const db = this.datastore.db;
    const { rows, total } = await withTotal(
      db
        .select()
        .from(alertRules)
        .where(where)
        .orderBy(...ruleOrder)
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(alertRules).where(where),
    );
    return { rules: rows, total };
  }

  /** Changes the defaults given; the others are kept. */
  async update(id: number, change: RuleDefaultsChange): Promise<AlertRuleRow> {
    const changes = {
      defaultOperator: change.operator,
      defaultThreshold: change.threshold,
      defaultSeverity: change.severity,
      defaultEnabled: change.enabled,
      defaultDurationSeconds: change.durationSeconds,
    };
    if (Object.values(changes).every((value) => value === undefined)) {
      return this.require(id);
    }
    const [row] = await this.datastore.db
      .update(alertRules)
      .set(changes)
      .where(eq(alertRules.id, id))
      .returning();
    if (!row) {
      throw new NotFound("Alert rule not found");
    }
    return row;
  }

  /** The rule, or NotFound. */
  async require(id: number): Promise<AlertRuleRow> {
    const [row] = await this.datastore.db.select().from(alertRules).where(eq(alertRules.id, id));
    if (!row) {
      throw new NotFound("Alert rule not found");
    }
    return row;
  }
}

/** What a rule is and does by default, as both the rule and the override listings show it. */
export function ruleDefaults(row: AlertRuleRow) {
  return {
    name: row.name,
    description: row.description,
    category: row.category,
    metric_name: row.metricName,
    metric_unit: row.metricUnit,
    default_operator: row.defaultOperator,
    default_threshold: row.defaultThreshold,
    default_severity: row.defaultSeverity as Severity,
    default_enabled: row.defaultEnabled,
    default_duration_seconds: row.defaultDurationSeconds,
  };
}

export function presentRule(row: AlertRuleRow) {
  return {
    id: row.id,
    ...ruleDefaults(row),
    required_extension: row.requiredExtension,
    is_built_in: row.isBuiltIn,
    created_at: iso(row.createdAt),
  };
}
