import { getClusterActivityLoad } from "./get-cluster-activity-load.js";
import { getClusterActivitySessions } from "./get-cluster-activity-sessions.js";
import { getClusterActivityTop } from "./get-cluster-activity-top.js";
import { getConnectionActivityLoad } from "./get-connection-activity-load.js";
import { getConnectionActivitySessions } from "./get-connection-activity-sessions.js";
import { getConnectionActivityTop } from "./get-connection-activity-top.js";
import { getGroupActivityLoad } from "./get-group-activity-load.js";
import { getGroupActivitySessions } from "./get-group-activity-sessions.js";
import { getGroupActivityTop } from "./get-group-activity-top.js";

export * from "./get-cluster-activity-load.js";
export * from "./get-cluster-activity-sessions.js";
export * from "./get-cluster-activity-top.js";
export * from "./get-connection-activity-load.js";
export * from "./get-connection-activity-sessions.js";
export * from "./get-connection-activity-top.js";
export * from "./get-group-activity-load.js";
export * from "./get-group-activity-sessions.js";
export * from "./get-group-activity-top.js";
export * from "./schemas.js";

export const activityOperations = [
  getConnectionActivityLoad,
  getConnectionActivityTop,
  getConnectionActivitySessions,
  getClusterActivityLoad,
  getClusterActivityTop,
  getClusterActivitySessions,
  getGroupActivityLoad,
  getGroupActivityTop,
  getGroupActivitySessions,
] as const;
