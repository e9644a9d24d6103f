import { unacknowledgeAlert } from "@dbmon/contract";
import { requireAlert } from "../../alerting/alert-access.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerUnacknowledgeAlert(app: App): void {
  app.openapi(guarded(unacknowledgeAlert, {}), async (c) => {
    const { alert_id: alertId } = c.req.valid("query");
    const sql = c.get("services").datastore.sql;
    await requireAlert(c.get("access"), sql, alertId);
    const done = await sql.begin(async (tx) => {
      const updated = await tx`
        update alerts set status = 'active', last_updated = now()
        where id = ${alertId} and status = 'acknowledged' returning id`;
      if (updated.length === 0) {
        return false;
      }
      await tx`delete from alert_acknowledgments where alert_id = ${alertId}`;
      return true;
    });
    if (!done) {
      throw new ApiError(409, "Alert is not currently acknowledged");
    }
    return c.json({ status: "active" }, 200);
  });
}
