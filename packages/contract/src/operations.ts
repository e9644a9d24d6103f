import { activityOperations } from "./activity/index.js";
import { alertOverridesOperations } from "./alert-overrides/index.js";
import { alertRulesOperations } from "./alert-rules/index.js";
import { alertsOperations } from "./alerts/index.js";
import { authOperations } from "./auth/index.js";
import { blackoutSchedulesOperations } from "./blackout-schedules/index.js";
import { blackoutsOperations } from "./blackouts/index.js";
import { channelOverridesOperations } from "./channel-overrides/index.js";
import { clusterGroupOperations } from "./cluster-groups/index.js";
import { clusterOperations } from "./clusters/index.js";
import { connectionOperations } from "./connections/index.js";
import { conversationOperations } from "./conversations/index.js";
import { llmOperations } from "./llm/index.js";
import { mcpOperations } from "./mcp/index.js";
import { memoriesOperations } from "./memories/index.js";
import { metricsOperations } from "./metrics/index.js";
import { notificationsOperations } from "./notifications/index.js";
import type { Operation } from "./operation.js";
import { overviewOperations } from "./overview/index.js";
import { probeOperations } from "./probes/index.js";
import { rbacGroupOperations } from "./rbac-groups/index.js";
import { rbacPrivilegeOperations } from "./rbac-privileges/index.js";
import { rbacTokenOperations } from "./rbac-tokens/index.js";
import { rbacUserOperations } from "./rbac-users/index.js";
import { serverInfoOperations } from "./server-info/index.js";
import { timelineOperations } from "./timeline/index.js";
import { utilityOperations } from "./utilities/index.js";

/** Every operation of the contract, resource by resource. The API implements each one exactly once. */
export const allOperations: readonly Operation[] = [
  ...utilityOperations,
  ...connectionOperations,
  ...clusterGroupOperations,
  ...clusterOperations,
  ...serverInfoOperations,
  ...authOperations,
  ...rbacUserOperations,
  ...rbacGroupOperations,
  ...rbacTokenOperations,
  ...rbacPrivilegeOperations,
  ...alertsOperations,
  ...alertRulesOperations,
  ...alertOverridesOperations,
  ...blackoutsOperations,
  ...blackoutSchedulesOperations,
  ...notificationsOperations,
  ...channelOverridesOperations,
  ...probeOperations,
  ...metricsOperations,
  ...timelineOperations,
  ...activityOperations,
  ...conversationOperations,
  ...llmOperations,
  ...memoriesOperations,
  ...mcpOperations,
  ...overviewOperations,
];
