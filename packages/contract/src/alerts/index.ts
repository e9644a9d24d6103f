import { acknowledgeAlert } from "./acknowledge-alert.js";
import { alertCounts } from "./alert-counts.js";
import { listAlerts } from "./list-alerts.js";
import { saveAlertAnalysis } from "./save-alert-analysis.js";
import { unacknowledgeAlert } from "./unacknowledge-alert.js";

export * from "./acknowledge-alert.js";
export * from "./alert-counts.js";
export * from "./list-alerts.js";
export * from "./save-alert-analysis.js";
export * from "./schemas.js";
export * from "./unacknowledge-alert.js";

export const alertsOperations = [
  listAlerts,
  alertCounts,
  acknowledgeAlert,
  unacknowledgeAlert,
  saveAlertAnalysis,
] as const;
