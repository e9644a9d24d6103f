import { getAlertRule } from "@dbmon/contract";
import { presentRule, type RuleRow } from "../../alerting/rules.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerGetAlertRule(app: App): void {
  app.openapi(guarded(getAlertRule, {}), async (c) => {
    const { id } = c.req.valid("param");
    const [row] = await c.get("services").datastore.sql<
      RuleRow[]
    >`select * from alert_rules where id = ${id}`;
    if (!row) {
      throw new ApiError(404, "Alert rule not found");
    }
    return c.json(presentRule(row), 200);
  });
}
