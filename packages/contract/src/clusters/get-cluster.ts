import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ClusterPathSchema, ClusterSchema } from "./schemas.js";

export const getCluster = defineOperation({
  method: "get",
  path: "/api/v1/clusters/{id}",
  operationId: "getCluster",
  summary: "Get a cluster (server-N and cluster-spock-* ids answer 405)",
  tag: "clusters",
  access: { note: "A cluster the caller cannot see is not found." },
  request: { params: ClusterPathSchema },
  responses: { 200: jsonResponse(ClusterSchema, "The cluster") },
  errors: [400, 404, 405],
});
