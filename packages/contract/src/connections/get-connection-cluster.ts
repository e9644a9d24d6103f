import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConnectionClusterSchema, ConnectionPathSchema } from "./schemas.js";

export const getConnectionCluster = defineOperation({
  method: "get",
  path: "/api/v1/connections/{id}/cluster",
  operationId: "getConnectionCluster",
  summary: "Cluster membership of a connection",
  tag: "connections",
  access: {
    connection: { param: "id", level: "read" },
    note: "Clusters and relationships the caller cannot see are left out.",
  },
  request: { params: ConnectionPathSchema },
  responses: { 200: jsonResponse(ConnectionClusterSchema, "Membership, clusters and relationships") },
  errors: [400, 404],
});
