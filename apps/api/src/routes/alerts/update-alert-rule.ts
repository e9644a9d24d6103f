import { updateAlertRule } from "@dbmon/contract";
import { manageRulesRefusal, presentRule, type RuleRow } from "../../alerting/rules.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerUpdateAlertRule(app: App): void {
  app.openapi(
    guarded(updateAlertRule, { permission: "manage_alert_rules", message: manageRulesRefusal }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const [row] = await c.get("services").datastore.sql<RuleRow[]>`
        update alert_rules set
          default_operator = coalesce(${body.default_operator ?? null}, default_operator),
          default_threshold = coalesce(${body.default_threshold ?? null}::float8, default_threshold),
          default_severity = coalesce(${body.default_severity ?? null}, default_severity),
          default_enabled = coalesce(${body.default_enabled ?? null}::boolean, default_enabled),
          default_duration_seconds = coalesce(${body.default_duration_seconds ?? null}::int, default_duration_seconds)
        where id = ${id} returning *`;
      if (!row) {
        throw new ApiError(404, "Alert rule not found");
      }
      return c.json(presentRule(row), 200);
    },
  );
}
