import { addServerToCluster } from "./add-server-to-cluster.js";
import { clearConnectionRelationships } from "./clear-connection-relationships.js";
import { createCluster } from "./create-cluster.js";
import { deleteCluster } from "./delete-cluster.js";
import { deleteClusterRelationship } from "./delete-cluster-relationship.js";
import { getCluster } from "./get-cluster.js";
import { getClusterTopology } from "./get-cluster-topology.js";
import { listClusterRelationships } from "./list-cluster-relationships.js";
import { listClusterServers } from "./list-cluster-servers.js";
import { listClustersFlat } from "./list-clusters-flat.js";
import { removeServerFromCluster } from "./remove-server-from-cluster.js";
import { setConnectionRelationships } from "./set-connection-relationships.js";
import { updateCluster } from "./update-cluster.js";

export * from "./add-server-to-cluster.js";
export * from "./clear-connection-relationships.js";
export * from "./create-cluster.js";
export * from "./delete-cluster.js";
export * from "./delete-cluster-relationship.js";
export * from "./get-cluster.js";
export * from "./get-cluster-topology.js";
export * from "./list-cluster-relationships.js";
export * from "./list-cluster-servers.js";
export * from "./list-clusters-flat.js";
export * from "./remove-server-from-cluster.js";
export * from "./schemas.js";
export * from "./set-connection-relationships.js";
export * from "./update-cluster.js";

export const clusterOperations = [
  getClusterTopology,
  createCluster,
  listClustersFlat,
  getCluster,
  updateCluster,
  deleteCluster,
  listClusterServers,
  addServerToCluster,
  removeServerFromCluster,
  listClusterRelationships,
  setConnectionRelationships,
  clearConnectionRelationships,
  deleteClusterRelationship,
] as const;
