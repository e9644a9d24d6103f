import { ClusterSchema } from "../clusters/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ClusterGroupPathSchema, ClusterInGroupCreateSchema } from "./schemas.js";

export const createClusterInGroup = defineOperation({
  method: "post",
  path: "/api/v1/cluster-groups/{id}/clusters",
  operationId: "createClusterInGroup",
  summary: "Create a cluster in a group (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { params: ClusterGroupPathSchema, body: jsonBody(ClusterInGroupCreateSchema) },
  responses: { 201: jsonResponse(ClusterSchema, "The new cluster") },
  errors: [400, 404],
});
