import { defineOperation } from "../operation.js";
import { ClusterPathSchema } from "./schemas.js";

export const deleteCluster = defineOperation({
  method: "delete",
  path: "/api/v1/clusters/{id}",
  operationId: "deleteCluster",
  summary: "Delete a manual cluster, or dismiss an auto-detected one for good (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { params: ClusterPathSchema },
  responses: { 204: { description: "Done; no body" } },
  errors: [400, 404],
});
