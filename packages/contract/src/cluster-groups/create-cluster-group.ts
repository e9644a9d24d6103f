import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ClusterGroupRequestSchema, ClusterGroupSchema } from "./schemas.js";

export const createClusterGroup = defineOperation({
  method: "post",
  path: "/api/v1/cluster-groups",
  operationId: "createClusterGroup",
  summary: "Create a cluster group (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { body: jsonBody(ClusterGroupRequestSchema) },
  responses: { 201: jsonResponse(ClusterGroupSchema, "The new group") },
  errors: [400, 409],
});
