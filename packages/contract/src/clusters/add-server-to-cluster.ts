import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { AddServerToClusterSchema, ClusterMembershipSchema, StoredClusterPathSchema } from "./schemas.js";

export const addServerToCluster = defineOperation({
  method: "post",
  path: "/api/v1/clusters/{id}/servers",
  operationId: "addServerToCluster",
  summary: "Place a server in a cluster by hand (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { params: StoredClusterPathSchema, body: jsonBody(AddServerToClusterSchema) },
  responses: { 200: jsonResponse(ClusterMembershipSchema, "The membership") },
  errors: [400, 404],
});
