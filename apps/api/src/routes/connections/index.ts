import { adviseIndexesHandler } from "./advise-indexes.js";
import { clearCurrentConnectionHandler } from "./clear-current-connection.js";
import { createConnectionHandler } from "./create-connection.js";
import { deleteConnectionHandler } from "./delete-connection.js";
import { explainWithHypotheticalIndexesHandler } from "./explain-with-hypothetical-indexes.js";
import { getConnectionHandler } from "./get-connection.js";
import { getConnectionClusterHandler } from "./get-connection-cluster.js";
import { getConnectionContextHandler } from "./get-connection-context.js";
import { getCurrentConnectionHandler } from "./get-current-connection.js";
import { listConnectionDatabasesHandler } from "./list-connection-databases.js";
import { listConnectionsHandler } from "./list-connections.js";
import { queryConnectionHandler } from "./query-connection.js";
import { setCurrentConnectionHandler } from "./set-current-connection.js";
import { updateConnectionHandler } from "./update-connection.js";
import { updateConnectionClusterHandler } from "./update-connection-cluster.js";

export const connectionHandlers = [
  listConnectionsHandler,
  createConnectionHandler,
  getConnectionHandler,
  updateConnectionHandler,
  deleteConnectionHandler,
  listConnectionDatabasesHandler,
  getCurrentConnectionHandler,
  setCurrentConnectionHandler,
  clearCurrentConnectionHandler,
  queryConnectionHandler,
  adviseIndexesHandler,
  explainWithHypotheticalIndexesHandler,
  getConnectionContextHandler,
  getConnectionClusterHandler,
  updateConnectionClusterHandler,
];
