import { createClusterGroupHandler } from "./create-cluster-group.js";
import { createClusterInGroupHandler } from "./create-cluster-in-group.js";
import { deleteClusterGroupHandler } from "./delete-cluster-group.js";
import { getClusterGroupHandler } from "./get-cluster-group.js";
import { listClusterGroupsHandler } from "./list-cluster-groups.js";
import { listGroupClustersHandler } from "./list-group-clusters.js";
import { updateClusterGroupHandler } from "./update-cluster-group.js";

export const clusterGroupHandlers = [
  listClusterGroupsHandler,
  createClusterGroupHandler,
  getClusterGroupHandler,
  updateClusterGroupHandler,
  deleteClusterGroupHandler,
  listGroupClustersHandler,
  createClusterInGroupHandler,
];
