import { acknowledgeAlert } from "@dbmon/contract";
import { requireAlert } from "../../alerting/alert-access.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerAcknowledgeAlert(app: App): void {
  app.openapi(guarded(acknowledgeAlert, {}), async (c) => {
    const body = c.req.valid("json");
    const sql = c.get("services").datastore.sql;
    const access = c.get("access");
    await requireAlert(access, sql, body.alert_id);
    const caller = await access.requireCaller();
    const falsePositive = body.false_positive ?? false;
    const done = await sql.begin(async (tx) => {
      const updated = await tx`
        update alerts set status = 'acknowledged', last_updated = now()
        where id = ${body.alert_id} and status = 'active' returning id`;
      if (updated.length === 0) {
        return false;
      }
      await tx`
        insert into alert_acknowledgments (alert_id, acknowledged_by, acknowledge_type, message, false_positive)
        values (${body.alert_id}, ${caller.username}, ${falsePositive ? "false_positive" : "acknowledge"},
          ${body.message ?? ""}, ${falsePositive})`;
      return true;
    });
    if (!done) {
      throw new ApiError(409, "Alert is not currently active");
    }
    return c.json({ status: "acknowledged" }, 200);
  });
}
