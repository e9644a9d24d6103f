import { defineOperation } from "../operation.js";
import { ClusterServerPathSchema } from "./schemas.js";

export const removeServerFromCluster = defineOperation({
  method: "delete",
  path: "/api/v1/clusters/{id}/servers/{connectionId}",
  operationId: "removeServerFromCluster",
  summary: "Take a server out of a cluster and hand it back to auto-detection (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { params: ClusterServerPathSchema },
  responses: { 204: { description: "Done; no body" } },
  errors: [400, 404],
});
