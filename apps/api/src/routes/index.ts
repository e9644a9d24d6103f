import type { App } from "../http/app-type.js";
import { registerMissingConnectionId } from "../http/missing-connection-id.js";
import { registerOperations } from "../http/operations.js";
import { registerAcknowledgeAlert } from "./alerts/acknowledge-alert.js";
import { registerAlertCounts } from "./alerts/alert-counts.js";
import { registerDeleteAlertOverride } from "./alerts/delete-alert-override.js";
import { registerGetAlertOverrideContext } from "./alerts/get-alert-override-context.js";
import { registerGetAlertRule } from "./alerts/get-alert-rule.js";
import { registerListAlertOverrides } from "./alerts/list-alert-overrides.js";
import { registerListAlertRules } from "./alerts/list-alert-rules.js";
import { registerListAlerts } from "./alerts/list-alerts.js";
import { registerSaveAlertAnalysis } from "./alerts/save-alert-analysis.js";
import { registerUnacknowledgeAlert } from "./alerts/unacknowledge-alert.js";
import { registerUpdateAlertRule } from "./alerts/update-alert-rule.js";
import { registerUpsertAlertOverride } from "./alerts/upsert-alert-override.js";
import { authHandlers } from "./auth/index.js";
import { registerCreateBlackout } from "./blackouts/create-blackout.js";
import { registerCreateBlackoutSchedule } from "./blackouts/create-blackout-schedule.js";
import { registerDeleteBlackout } from "./blackouts/delete-blackout.js";
import { registerDeleteBlackoutSchedule } from "./blackouts/delete-blackout-schedule.js";
import { registerGetBlackout } from "./blackouts/get-blackout.js";
import { registerGetBlackoutSchedule } from "./blackouts/get-blackout-schedule.js";
import { registerListBlackoutSchedules } from "./blackouts/list-blackout-schedules.js";
import { registerListBlackouts } from "./blackouts/list-blackouts.js";
import { registerStopBlackout } from "./blackouts/stop-blackout.js";
import { registerUpdateBlackout } from "./blackouts/update-blackout.js";
import { registerUpdateBlackoutSchedule } from "./blackouts/update-blackout-schedule.js";
import { clusterGroupHandlers } from "./cluster-groups/index.js";
import { clusterHandlers } from "./clusters/index.js";
import { connectionHandlers } from "./connections/index.js";
import { metricsHandlers } from "./metrics/index.js";
import { registerCreateEmailRecipient } from "./notifications/create-email-recipient.js";
import { registerCreateNotificationChannel } from "./notifications/create-notification-channel.js";
import { registerDeleteChannelOverride } from "./notifications/delete-channel-override.js";
import { registerDeleteEmailRecipient } from "./notifications/delete-email-recipient.js";
import { registerDeleteNotificationChannel } from "./notifications/delete-notification-channel.js";
import { registerGetNotificationChannel } from "./notifications/get-notification-channel.js";
import { registerListChannelOverrides } from "./notifications/list-channel-overrides.js";
import { registerListEmailRecipients } from "./notifications/list-email-recipients.js";
import { registerListNotificationChannels } from "./notifications/list-notification-channels.js";
import { registerTestNotificationChannel } from "./notifications/test-notification-channel.js";
import { registerUpdateEmailRecipient } from "./notifications/update-email-recipient.js";
import { registerUpdateNotificationChannel } from "./notifications/update-notification-channel.js";
import { registerUpsertChannelOverride } from "./notifications/upsert-channel-override.js";
import { probeHandlers } from "./probes/index.js";
import { rbacGroupHandlers } from "./rbac-groups/index.js";
import { rbacPrivilegeHandlers } from "./rbac-privileges/index.js";
import { rbacTokenHandlers } from "./rbac-tokens/index.js";
import { rbacUserHandlers } from "./rbac-users/index.js";
import { serverInfoHandlers } from "./server-info/index.js";
import { timelineHandlers } from "./timeline/index.js";
import { utilityHandlers } from "./utilities/index.js";

/** The handler of every operation of the contract that has moved to one file per operation. */
export const implementations = [
  ...utilityHandlers,
  ...connectionHandlers,
  ...clusterGroupHandlers,
  ...clusterHandlers,
  ...serverInfoHandlers,
  ...authHandlers,
  ...rbacUserHandlers,
  ...rbacGroupHandlers,
  ...rbacTokenHandlers,
  ...rbacPrivilegeHandlers,
  ...probeHandlers,
  ...metricsHandlers,
  ...timelineHandlers,
];

/** Every operation of the contract, registered explicitly. */
export function registerRoutes(app: App): void {
  registerOperations(app, implementations);
  registerMissingConnectionId(app);
  registerAcknowledgeAlert(app);
  registerAlertCounts(app);
  registerDeleteAlertOverride(app);
  registerGetAlertOverrideContext(app);
  registerGetAlertRule(app);
  registerListAlertOverrides(app);
  registerListAlertRules(app);
  registerListAlerts(app);
  registerSaveAlertAnalysis(app);
  registerUnacknowledgeAlert(app);
  registerUpdateAlertRule(app);
  registerUpsertAlertOverride(app);
  registerCreateBlackoutSchedule(app);
  registerCreateBlackout(app);
  registerDeleteBlackoutSchedule(app);
  registerDeleteBlackout(app);
  registerGetBlackoutSchedule(app);
  registerGetBlackout(app);
  registerListBlackoutSchedules(app);
  registerListBlackouts(app);
  registerStopBlackout(app);
  registerUpdateBlackoutSchedule(app);
  registerUpdateBlackout(app);
  registerCreateEmailRecipient(app);
  registerCreateNotificationChannel(app);
  registerDeleteChannelOverride(app);
  registerDeleteEmailRecipient(app);
  registerDeleteNotificationChannel(app);
  registerGetNotificationChannel(app);
  registerListChannelOverrides(app);
  registerListEmailRecipients(app);
  registerListNotificationChannels(app);
  registerTestNotificationChannel(app);
  registerUpdateEmailRecipient(app);
  registerUpdateNotificationChannel(app);
  registerUpsertChannelOverride(app);
}
