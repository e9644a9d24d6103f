import { saveAlertAnalysis } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const saveAlertAnalysisHandler = implement(saveAlertAnalysis, async (c) => {
  const body = c.req.valid("json");
  await c
    .get("services")
    .alerts.saveAnalysis(c.get("access"), body.alert_id, body.analysis, body.metric_value ?? null);
  return c.json({ status: "saved" }, 200);
});
