import { z } from "@hono/zod-openapi";
import { ClusterSchema } from "../clusters/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ClusterGroupPathSchema } from "./schemas.js";

export const listGroupClusters = defineOperation({
  method: "get",
  path: "/api/v1/cluster-groups/{id}/clusters",
  operationId: "listGroupClusters",
  summary: "List the clusters of a group",
  tag: "clusters",
  access: { note: "Clusters the caller cannot see are left out." },
  request: { params: ClusterGroupPathSchema },
  responses: { 200: jsonResponse(z.array(ClusterSchema), "Clusters, by name") },
  errors: [400, 404],
});
