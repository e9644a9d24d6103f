import { addServerToClusterHandler } from "./add-server-to-cluster.js";
import { clearConnectionRelationshipsHandler } from "./clear-connection-relationships.js";
import { createClusterHandler } from "./create-cluster.js";
import { deleteClusterHandler } from "./delete-cluster.js";
import { deleteClusterRelationshipHandler } from "./delete-cluster-relationship.js";
import { getClusterHandler } from "./get-cluster.js";
import { getClusterTopologyHandler } from "./get-cluster-topology.js";
import { listClusterRelationshipsHandler } from "./list-cluster-relationships.js";
import { listClusterServersHandler } from "./list-cluster-servers.js";
import { listClustersFlatHandler } from "./list-clusters-flat.js";
import { removeServerFromClusterHandler } from "./remove-server-from-cluster.js";
import { setConnectionRelationshipsHandler } from "./set-connection-relationships.js";
import { updateClusterHandler } from "./update-cluster.js";

export const clusterHandlers = [
  getClusterTopologyHandler,
  createClusterHandler,
  listClustersFlatHandler,
  getClusterHandler,
  updateClusterHandler,
  deleteClusterHandler,
  listClusterServersHandler,
  addServerToClusterHandler,
  removeServerFromClusterHandler,
  listClusterRelationshipsHandler,
  setConnectionRelationshipsHandler,
  clearConnectionRelationshipsHandler,
  deleteClusterRelationshipHandler,
];
