import { adviseIndexes } from "./advise-indexes.js";
import { clearCurrentConnection } from "./clear-current-connection.js";
import { createConnection } from "./create-connection.js";
import { deleteConnection } from "./delete-connection.js";
import { explainWithHypotheticalIndexes } from "./explain-with-hypothetical-indexes.js";
import { getConnection } from "./get-connection.js";
import { getConnectionCluster } from "./get-connection-cluster.js";
import { getConnectionContext } from "./get-connection-context.js";
import { getCurrentConnection } from "./get-current-connection.js";
import { listConnectionDatabases } from "./list-connection-databases.js";
import { listConnections } from "./list-connections.js";
import { queryConnection } from "./query-connection.js";
import { setCurrentConnection } from "./set-current-connection.js";
import { updateConnection } from "./update-connection.js";
import { updateConnectionCluster } from "./update-connection-cluster.js";

export * from "./advise-indexes.js";
export * from "./clear-current-connection.js";
export * from "./create-connection.js";
export * from "./delete-connection.js";
export * from "./explain-with-hypothetical-indexes.js";
export * from "./get-connection.js";
export * from "./get-connection-cluster.js";
export * from "./get-connection-context.js";
export * from "./get-current-connection.js";
export * from "./list-connection-databases.js";
export * from "./list-connections.js";
export * from "./query-connection.js";
export * from "./schemas.js";
export * from "./set-current-connection.js";
export * from "./update-connection.js";
export * from "./update-connection-cluster.js";

export const connectionOperations = [
  listConnections,
  createConnection,
  getConnection,
  updateConnection,
  deleteConnection,
  listConnectionDatabases,
  getCurrentConnection,
  setCurrentConnection,
  clearCurrentConnection,
  queryConnection,
  adviseIndexes,
  explainWithHypotheticalIndexes,
  getConnectionContext,
  getConnectionCluster,
  updateConnectionCluster,
] as const;
