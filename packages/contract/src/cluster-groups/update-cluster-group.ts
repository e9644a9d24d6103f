import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ClusterGroupPathSchema, ClusterGroupRequestSchema, ClusterGroupSchema } from "./schemas.js";

export const updateClusterGroup = defineOperation({
  method: "put",
  path: "/api/v1/cluster-groups/{id}",
  operationId: "updateClusterGroup",
  summary: "Rename or describe a cluster group (owner or manage_connections)",
  tag: "clusters",
  access: {
    note: "The group's owner may change it; anybody else needs the `manage_connections` permission.",
  },
  request: { params: ClusterGroupPathSchema, body: jsonBody(ClusterGroupRequestSchema) },
  responses: { 200: jsonResponse(ClusterGroupSchema, "The updated group") },
  errors: [400, 403, 404, 409],
});
