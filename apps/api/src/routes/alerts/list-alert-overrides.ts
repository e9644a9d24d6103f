import { listAlertOverrides } from "@dbmon/contract";
import { type RuleRow, ruleDefaults } from "../../alerting/rules.js";
import { scopeVisible } from "../../alerting/scopes.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

type Row = RuleRow & {
  o_operator: string | null;
  o_threshold: number | null;
  o_severity: string | null;
  o_enabled: boolean | null;
  o_duration: number | null;
  has_override: boolean;
};

export function registerListAlertOverrides(app: App): void {
  app.openapi(guarded(listAlertOverrides, {}), async (c) => {
    const { scope, scopeId } = c.req.valid("param");
    const sql = c.get("services").datastore.sql;
    if (!(await scopeVisible(c.get("access"), sql, scope, scopeId))) {
      throw new ApiError(404, "Alert override scope not found");
    }
    const rows = await sql<Row[]>`
      select r.*, t.operator as o_operator, t.threshold as o_threshold, t.severity as o_severity,
        t.enabled as o_enabled, t.duration_seconds as o_duration, t.id is not null as has_override
      from alert_rules r
      left join alert_thresholds t on t.rule_id = r.id and t.scope = ${scope} and t.scope_id = ${scopeId}
        and t.database_name = ''
      order by r.category, r.name`;
    return c.json(
      rows.map((row) => ({
        rule_id: row.id,
        ...ruleDefaults(row),
        has_override: row.has_override,
        override_operator: row.o_operator,
        override_threshold: row.o_threshold,
        override_severity: row.o_severity,
        override_enabled: row.o_enabled,
        override_duration_seconds: row.o_duration,
      })),
      200,
    );
  });
}
