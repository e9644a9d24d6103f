import { createClusterGroup } from "./create-cluster-group.js";
import { createClusterInGroup } from "./create-cluster-in-group.js";
import { deleteClusterGroup } from "./delete-cluster-group.js";
import { getClusterGroup } from "./get-cluster-group.js";
import { listClusterGroups } from "./list-cluster-groups.js";
import { listGroupClusters } from "./list-group-clusters.js";
import { updateClusterGroup } from "./update-cluster-group.js";

export * from "./create-cluster-group.js";
export * from "./create-cluster-in-group.js";
export * from "./delete-cluster-group.js";
export * from "./get-cluster-group.js";
export * from "./list-cluster-groups.js";
export * from "./list-group-clusters.js";
export * from "./schemas.js";
export * from "./update-cluster-group.js";

export const clusterGroupOperations = [
  listClusterGroups,
  createClusterGroup,
  getClusterGroup,
  updateClusterGroup,
  deleteClusterGroup,
  listGroupClusters,
  createClusterInGroup,
] as const;
