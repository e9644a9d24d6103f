import { acknowledgeAlertHandler } from "./acknowledge-alert.js";
import { alertCountsHandler } from "./alert-counts.js";
import { listAlertsHandler } from "./list-alerts.js";
import { saveAlertAnalysisHandler } from "./save-alert-analysis.js";
import { unacknowledgeAlertHandler } from "./unacknowledge-alert.js";

export const alertsHandlers = [
  listAlertsHandler,
  alertCountsHandler,
  acknowledgeAlertHandler,
  unacknowledgeAlertHandler,
  saveAlertAnalysisHandler,
];
