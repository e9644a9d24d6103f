import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ClusterGroupPathSchema, ClusterGroupSchema } from "./schemas.js";

export const getClusterGroup = defineOperation({
  method: "get",
  path: "/api/v1/cluster-groups/{id}",
  operationId: "getClusterGroup",
  summary: "Get a cluster group",
  tag: "clusters",
  access: { note: "A group the caller cannot see is not found." },
  request: { params: ClusterGroupPathSchema },
  responses: { 200: jsonResponse(ClusterGroupSchema, "The group") },
  errors: [400, 404],
});
