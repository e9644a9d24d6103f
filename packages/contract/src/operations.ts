import { alertOverridesOperations } from "./alert-overrides/index.js";
import { alertRulesOperations } from "./alert-rules/index.js";
import { alertsOperations } from "./alerts/index.js";
import { blackoutSchedulesOperations } from "./blackout-schedules/index.js";
import { blackoutsOperations } from "./blackouts/index.js";
import { channelOverridesOperations } from "./channel-overrides/index.js";
import { notificationsOperations } from "./notifications/index.js";
import type { Operation } from "./operation.js";
import { serverInfoOperations } from "./server-info/index.js";
import { utilityOperations } from "./utilities/index.js";

/** Every operation of the contract, resource by resource. The API implements each one exactly once. */
export const allOperations: readonly Operation[] = [
  ...utilityOperations,
  ...serverInfoOperations,
  ...alertsOperations,
  ...alertRulesOperations,
  ...alertOverridesOperations,
  ...blackoutsOperations,
  ...blackoutSchedulesOperations,
  ...notificationsOperations,
  ...channelOverridesOperations,
];
