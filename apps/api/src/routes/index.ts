import { registerApiReference } from "../http/api-reference.js";
import type { App } from "../http/app-type.js";
import { registerMcpEndpoint } from "../http/mcp-endpoint.js";
import { registerMissingConnectionId } from "../http/missing-connection-id.js";
import { registerOperations, type UndeclaredStatus } from "../http/operations.js";
import { activityHandlers } from "./activity/index.js";
import { alertOverridesHandlers } from "./alert-overrides/index.js";
import { alertRulesHandlers } from "./alert-rules/index.js";
import { alertsHandlers } from "./alerts/index.js";
import { authHandlers } from "./auth/index.js";
import { blackoutSchedulesHandlers } from "./blackout-schedules/index.js";
import { blackoutsHandlers } from "./blackouts/index.js";
import { channelOverridesHandlers } from "./channel-overrides/index.js";
import { clusterGroupHandlers } from "./cluster-groups/index.js";
import { clusterHandlers } from "./clusters/index.js";
import { connectionHandlers } from "./connections/index.js";
import { conversationHandlers } from "./conversations/index.js";
import { llmHandlers } from "./llm/index.js";
import { mcpHandlers } from "./mcp/index.js";
import { memoriesHandlers } from "./memories/index.js";
import { metricsHandlers } from "./metrics/index.js";
import { notificationsHandlers } from "./notifications/index.js";
import { overviewHandlers } from "./overview/index.js";
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
  ...alertsHandlers,
  ...alertRulesHandlers,
  ...alertOverridesHandlers,
  ...blackoutsHandlers,
  ...blackoutSchedulesHandlers,
  ...notificationsHandlers,
  ...channelOverridesHandlers,
  ...probeHandlers,
  ...metricsHandlers,
  ...timelineHandlers,
  ...activityHandlers,
  ...conversationHandlers,
  ...llmHandlers,
  ...memoriesHandlers,
  ...mcpHandlers,
  ...overviewHandlers,
];

/**
 * Every operation of the contract, registered explicitly, and the paths outside the contract: the
 * MCP endpoint and the API reference page.
 */
export function registerRoutes(app: App, onUndeclaredStatus: (report: UndeclaredStatus) => void): void {
  registerOperations(app, implementations, onUndeclaredStatus);
  registerMissingConnectionId(app);
  registerMcpEndpoint(app);
  registerApiReference(app);
}
