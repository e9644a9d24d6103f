import { type Datastore, schema } from "@dbmon/datastore";
import { and, count, eq, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { requireSettingsScope, type ScopeKind } from "../auth/visibility.js";
import { type ConnectionHierarchy, connectionHierarchy } from "../clusters/membership.js";
import { NotFound } from "../errors.js";
import { type Page, withTotal } from "../paging.js";
import {
  type AlertRuleRow,
  type AlertRuleService,
  presentRule,
  type RuleFilter,
  ruleDefaults,
  ruleOrder,
} from "./rules.js";

const { alertThresholds, alertRules } = schema;

const SCOPE_NOT_FOUND = "Alert override scope not found";

type OverrideRow = typeof alertThresholds.$inferSelect;

/** A rule and a scope's override of it, if any. */
export interface OverriddenRule {
  rule: AlertRuleRow;
  override: OverrideRow | null;
}

export interface OverrideInput {
  operator: string;
  threshold: number;
  severity: string;
  enabled: boolean;
  /** How long the condition must hold; null: the rule's default. */
  durationSeconds: number | null;
}

/** A rule seen from one connection: where it sits, the rule, and the overrides at each level. */
export interface OverrideContext {
  connectionId: number;
  hierarchy: ConnectionHierarchy;
  rule: AlertRuleRow;
  overrides: Record<"server" | "cluster" | "group", OverrideRow | null>;
}

/** Overrides of rules' defaults per server, cluster or group (the whole database of a server). */
export class AlertOverrideService {
  constructor(
    private readonly datastore: Datastore,
    private readonly rules: AlertRuleService,
  ) {}

  /** Every rule with the scope's override, if any; a scope the caller cannot see is not found. */
  async list(access: RequestAccess, scope: ScopeKind, scopeId: number): Promise<OverriddenRule[]> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "read", SCOPE_NOT_FOUND);
    return this.datastore.db
      .select({ rule: alertRules, override: alertThresholds })
      .from(alertRules)
      .leftJoin(alertThresholds, this.overrideOfRule(scope, scopeId))
      .orderBy(...ruleOrder);
  }

  /**
   * The rules matching the filter (`enabled` as the scope's override makes it) with the scope's
   * override, if any: one page, filtered and paged in SQL, and the total of all that match. A scope
   * the caller cannot see is not found.
   */
  async find(
    access: RequestAccess,
    scope: ScopeKind,
    scopeId: number,
    filter: RuleFilter,
    { limit, offset }: Page,
  ): Promise<{ rules: OverriddenRule[]; total: number }> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "read", SCOPE_NOT_FOUND);
    const where = and(
      filter.category === undefined ? undefined : eq(alertRules.category, filter.category),
      filter.enabled === undefined
        ? undefined
        : eq(sql`coalesce(${alertThresholds.enabled}, ${alertRules.defaultEnabled})`, filter.enabled),
    );
    const db = this.datastore.db;
    const { rows, total } = await withTotal(
      db
        .select({ rule: alertRules, override: alertThresholds })
        .from(alertRules)
        .leftJoin(alertThresholds, this.overrideOfRule(scope, scopeId))
        .where(where)
        .orderBy(...ruleOrder)
        .limit(limit)
        .offset(offset),
      db
        .select({ n: count() })
        .from(alertRules)
        .leftJoin(alertThresholds, this.overrideOfRule(scope, scopeId))
        .where(where),
    );
    return { rules: rows, total };
  }

  /** Creates or replaces the scope's override of a rule; a scope the caller cannot see is not found. */
  async upsert(
    access: RequestAccess,
    scope: ScopeKind,
    scopeId: number,
    ruleId: number,
    input: OverrideInput,
  ): Promise<void> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "change", SCOPE_NOT_FOUND);
    await this.rules.require(ruleId);
    const values = {
      operator: input.operator,
      threshold: input.threshold,
      severity: input.severity,
      enabled: input.enabled,
      durationSeconds: input.durationSeconds,
    };
    await this.datastore.db
      .insert(alertThresholds)
      .values({ ruleId, scope, scopeId, ...values })
      .onConflictDoUpdate({
        target: [
          alertThresholds.ruleId,
          alertThresholds.scope,
          alertThresholds.scopeId,
          alertThresholds.databaseName,
        ],
        set: { ...values, updatedAt: sql`now()` },
      });
  }

  /** Removes the scope's override of a rule (having none is fine); a scope the caller cannot see is not found. */
  async remove(access: RequestAccess, scope: ScopeKind, scopeId: number, ruleId: number): Promise<void> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "change", SCOPE_NOT_FOUND);
    await this.datastore.db
      .delete(alertThresholds)
      .where(and(eq(alertThresholds.ruleId, ruleId), this.at(scope, scopeId)));
  }

  /**
   * A connection's cluster and group, the rule and its overrides at each level. A connection the
   * caller cannot see is not found.
   */
  async context(access: RequestAccess, connectionId: number, ruleId: number): Promise<OverrideContext> {
    const hierarchy = await connectionHierarchy(this.datastore.sql, connectionId);
    if (!hierarchy || (await access.connectionLevel(connectionId)) === undefined) {
      throw new NotFound("Connection not found");
    }
    const rule = await this.rules.require(ruleId);
    const overrides = await this.datastore.db
      .select()
      .from(alertThresholds)
      .where(and(eq(alertThresholds.ruleId, ruleId), eq(alertThresholds.databaseName, "")));
    const at = (scope: ScopeKind, scopeId: number | null) =>
      overrides.find((o) => o.scope === scope && scopeId !== null && o.scopeId === scopeId) ?? null;
    return {
      connectionId,
      hierarchy,
      rule,
      overrides: {
        server: at("server", connectionId),
        cluster: at("cluster", hierarchy.clusterId),
        group: at("group", hierarchy.groupId),
      },
    };
  }

  /** The join of a rule to the scope's override of it. */
  private overrideOfRule(scope: ScopeKind, scopeId: number) {
    return and(eq(alertThresholds.ruleId, alertRules.id), this.at(scope, scopeId));
  }

  /** The scope's override of the whole server (not of one database). */
  private at(scope: ScopeKind, scopeId: number) {
    return and(
      eq(alertThresholds.scope, scope),
      eq(alertThresholds.scopeId, scopeId),
      eq(alertThresholds.databaseName, ""),
    );
  }
}

/** A rule and a scope's override of it as the wire (GET /alert-overrides/…) shows them. */
export function presentOverriddenRule({ rule, override }: OverriddenRule) {
  return {
    rule_id: rule.id,
    ...ruleDefaults(rule),
    has_override: override !== null,
    override_operator: override?.operator ?? null,
    override_threshold: override?.threshold ?? null,
    override_severity: override?.severity ?? null,
    override_enabled: override?.enabled ?? null,
    override_duration_seconds: override?.durationSeconds ?? null,
  };
}

/** What a rule does on a scope: its override's values where it has one, else its defaults. */
export function effectiveRule({ rule, override }: OverriddenRule) {
  return {
    operator: override?.operator ?? rule.defaultOperator,
    threshold: override?.threshold ?? rule.defaultThreshold,
    severity: override?.severity ?? rule.defaultSeverity,
    durationSeconds: override?.durationSeconds ?? rule.defaultDurationSeconds,
    enabled: override?.enabled ?? rule.defaultEnabled,
  };
}

/** A rule's context as `GET /alert-overrides/context/{connectionId}/{ruleId}` shows it. */
export function presentOverrideContext(context: OverrideContext) {
  const { hierarchy } = context;
  const detail = (row: OverrideRow | null) =>
    row && {
      operator: row.operator,
      threshold: row.threshold,
      severity: row.severity,
      enabled: row.enabled,
      duration_seconds: row.durationSeconds,
    };
  return {
    hierarchy: {
      connection_id: context.connectionId,
      cluster_id: hierarchy.clusterId,
      group_id: hierarchy.groupId,
      server_name: hierarchy.serverName,
      cluster_name: hierarchy.clusterName,
      group_name: hierarchy.groupName,
    },
    rule: presentRule(context.rule),
    overrides: {
      server: detail(context.overrides.server),
      cluster: detail(context.overrides.cluster),
      group: detail(context.overrides.group),
    },
  };
}
