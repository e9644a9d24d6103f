import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ClusterCreateSchema, ClusterSchema } from "./schemas.js";

export const createCluster = defineOperation({
  method: "post",
  path: "/api/v1/clusters",
  operationId: "createCluster",
  summary: "Create a cluster (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { body: jsonBody(ClusterCreateSchema) },
  responses: { 201: jsonResponse(ClusterSchema, "The new cluster") },
  errors: [400],
});
