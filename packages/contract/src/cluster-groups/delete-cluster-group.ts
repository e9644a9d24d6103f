import { defineOperation } from "../operation.js";
import { ClusterGroupPathSchema } from "./schemas.js";

export const deleteClusterGroup = defineOperation({
  method: "delete",
  path: "/api/v1/cluster-groups/{id}",
  operationId: "deleteClusterGroup",
  summary: "Delete a cluster group and its clusters (owner or manage_connections; not the default group)",
  tag: "clusters",
  access: {
    note: "The group's owner may delete it; anybody else needs the `manage_connections` permission.",
  },
  request: { params: ClusterGroupPathSchema },
  responses: { 204: { description: "Done; no body" } },
  errors: [400, 403, 404],
});
