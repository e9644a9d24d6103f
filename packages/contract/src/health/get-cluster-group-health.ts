import { ClusterGroupPathSchema } from "../cluster-groups/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { FleetHealthSchema } from "./schemas.js";

export const getClusterGroupHealth = defineOperation({
  method: "get",
  path: "/api/v1/cluster-groups/{id}/health",
  operationId: "getClusterGroupHealth",
  summary: "Health checks of a cluster group's connections, aggregated",
  tag: "health",
  access: {
    note: "A group the caller cannot see is not found; connections the caller cannot see are neither counted nor listed.",
  },
  request: { params: ClusterGroupPathSchema },
  responses: { 200: jsonResponse(FleetHealthSchema, "The group's health") },
  errors: [400, 404],
});
