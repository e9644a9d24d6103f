import { listAlertRules } from "@dbmon/contract";
import { presentRule, type RuleRow } from "../../alerting/rules.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerListAlertRules(app: App): void {
  app.openapi(guarded(listAlertRules, {}), async (c) => {
    const rows = await c.get("services").datastore.sql<RuleRow[]>`
      select * from alert_rules order by category, name`;
    return c.json(rows.map(presentRule), 200);
  });
}
