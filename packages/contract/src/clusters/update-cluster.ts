import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ClusterPathSchema, ClusterSchema, ClusterUpdateSchema } from "./schemas.js";

export const updateCluster = defineOperation({
  method: "put",
  path: "/api/v1/clusters/{id}",
  operationId: "updateCluster",
  summary: "Update a cluster, or rename or move an auto-detected one (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { params: ClusterPathSchema, body: jsonBody(ClusterUpdateSchema) },
  responses: { 200: jsonResponse(ClusterSchema, "The updated cluster") },
  errors: [400, 404],
});
