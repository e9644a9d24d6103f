import { getClusterGroupHealthHandler } from "./get-cluster-group-health.js";
import { getClusterHealthHandler } from "./get-cluster-health.js";
import { getConnectionHealthHandler } from "./get-connection-health.js";
import { getEstateHealthHandler } from "./get-estate-health.js";

export const healthHandlers = [
  getConnectionHealthHandler,
  getClusterHealthHandler,
  getClusterGroupHealthHandler,
  getEstateHealthHandler,
];
