import { upsertAlertOverride } from "@dbmon/contract";
import { manageRulesRefusal } from "../../alerting/rules.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerUpsertAlertOverride(app: App): void {
  app.openapi(
    guarded(upsertAlertOverride, { permission: "manage_alert_rules", message: manageRulesRefusal }),
    async (c) => {
      const { scope, scopeId, ruleId } = c.req.valid("param");
      const body = c.req.valid("json");
      const sql = c.get("services").datastore.sql;
      const [rule] = await sql`select id from alert_rules where id = ${ruleId}`;
      if (!rule) {
        throw new ApiError(404, "Alert rule not found");
      }
      await sql`
        insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity, enabled, duration_seconds)
        values (${ruleId}, ${scope}, ${scopeId}, ${body.operator}, ${body.threshold}, ${body.severity},
          ${body.enabled}, ${body.duration_seconds ?? null})
        on conflict (rule_id, scope, scope_id, database_name) do update set operator = excluded.operator,
          threshold = excluded.threshold, severity = excluded.severity, enabled = excluded.enabled,
          duration_seconds = excluded.duration_seconds, updated_at = now()`;
      return c.json({ status: "ok" }, 200);
    },
  );
}
