import { saveAlertAnalysis } from "@dbmon/contract";
import { requireAlert } from "../../alerting/alert-access.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerSaveAlertAnalysis(app: App): void {
  app.openapi(guarded(saveAlertAnalysis, {}), async (c) => {
    const body = c.req.valid("json");
    const sql = c.get("services").datastore.sql;
    await requireAlert(c.get("access"), sql, body.alert_id);
    await sql`
      update alerts set ai_analysis = ${body.analysis}, ai_analysis_metric_value = ${body.metric_value ?? null}
      where id = ${body.alert_id}`;
    return c.json({ status: "saved" }, 200);
  });
}
