import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  ConnectionClusterInfoSchema,
  ConnectionClusterUpdateSchema,
  ConnectionPathSchema,
} from "./schemas.js";

export const updateConnectionCluster = defineOperation({
  method: "put",
  path: "/api/v1/connections/{id}/cluster",
  operationId: "updateConnectionCluster",
  summary: "Assign a connection to a cluster, or hand it back to auto-detection",
  tag: "connections",
  access: { permission: "manage_connections", connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema, body: jsonBody(ConnectionClusterUpdateSchema) },
  responses: { 200: jsonResponse(ConnectionClusterInfoSchema, "The new membership") },
  errors: [400, 404],
});
