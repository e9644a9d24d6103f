import { StoredClusterPathSchema } from "../clusters/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { FleetHealthSchema } from "./schemas.js";

export const getClusterHealth = defineOperation({
  method: "get",
  path: "/api/v1/clusters/{id}/health",
  operationId: "getClusterHealth",
  summary: "Health checks of a cluster's connections, aggregated",
  tag: "health",
  access: {
    note: "A cluster the caller cannot see is not found; connections the caller cannot see are neither counted nor listed.",
  },
  request: { params: StoredClusterPathSchema },
  responses: { 200: jsonResponse(FleetHealthSchema, "The cluster's health") },
  errors: [400, 404],
});
