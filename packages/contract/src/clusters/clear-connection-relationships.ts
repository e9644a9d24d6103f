import { defineOperation } from "../operation.js";
import { ClusterConnectionPathSchema } from "./schemas.js";

export const clearConnectionRelationships = defineOperation({
  method: "delete",
  path: "/api/v1/clusters/{id}/connections/{connId}/relationships",
  operationId: "clearConnectionRelationships",
  summary: "Remove a server's manual relationships in a cluster (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { params: ClusterConnectionPathSchema },
  responses: { 204: { description: "Done; no body" } },
  errors: [400, 404],
});
