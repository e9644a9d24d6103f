import { deleteAlertOverride } from "@dbmon/contract";
import { manageRulesRefusal } from "../../alerting/rules.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerDeleteAlertOverride(app: App): void {
  app.openapi(
    guarded(deleteAlertOverride, { permission: "manage_alert_rules", message: manageRulesRefusal }),
    async (c) => {
      const { scope, scopeId, ruleId } = c.req.valid("param");
      await c.get("services").datastore.sql`
        delete from alert_thresholds where rule_id = ${ruleId} and scope = ${scope} and scope_id = ${scopeId}
          and database_name = ''`;
      return c.json({ status: "ok" }, 200);
    },
  );
}
