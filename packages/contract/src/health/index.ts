import { getClusterGroupHealth } from "./get-cluster-group-health.js";
import { getClusterHealth } from "./get-cluster-health.js";
import { getConnectionHealth } from "./get-connection-health.js";
import { getEstateHealth } from "./get-estate-health.js";

export * from "./get-cluster-group-health.js";
export * from "./get-cluster-health.js";
export * from "./get-connection-health.js";
export * from "./get-estate-health.js";
export * from "./schemas.js";

export const healthOperations = [
  getConnectionHealth,
  getClusterHealth,
  getClusterGroupHealth,
  getEstateHealth,
] as const;
