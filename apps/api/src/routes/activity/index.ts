import { getClusterActivityLoadHandler } from "./get-cluster-activity-load.js";
import { getClusterActivitySessionsHandler } from "./get-cluster-activity-sessions.js";
import { getClusterActivityTopHandler } from "./get-cluster-activity-top.js";
import { getConnectionActivityLoadHandler } from "./get-connection-activity-load.js";
import { getConnectionActivitySessionsHandler } from "./get-connection-activity-sessions.js";
import { getConnectionActivityTopHandler } from "./get-connection-activity-top.js";
import { getGroupActivityLoadHandler } from "./get-group-activity-load.js";
import { getGroupActivitySessionsHandler } from "./get-group-activity-sessions.js";
import { getGroupActivityTopHandler } from "./get-group-activity-top.js";

export const activityHandlers = [
  getConnectionActivityLoadHandler,
  getConnectionActivityTopHandler,
  getConnectionActivitySessionsHandler,
  getClusterActivityLoadHandler,
  getClusterActivityTopHandler,
  getClusterActivitySessionsHandler,
  getGroupActivityLoadHandler,
  getGroupActivityTopHandler,
  getGroupActivitySessionsHandler,
];
