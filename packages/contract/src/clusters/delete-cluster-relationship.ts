import { defineOperation } from "../operation.js";
import { ClusterRelationshipPathSchema } from "./schemas.js";

export const deleteClusterRelationship = defineOperation({
  method: "delete",
  path: "/api/v1/clusters/{id}/relationships/{relationshipId}",
  operationId: "deleteClusterRelationship",
  summary: "Delete one relationship of a cluster (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { params: ClusterRelationshipPathSchema },
  responses: { 204: { description: "Done; no body" } },
  errors: [400, 404],
});
