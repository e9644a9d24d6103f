import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ClusterSchema } from "./schemas.js";

export const listClustersFlat = defineOperation({
  method: "get",
  path: "/api/v1/clusters/list",
  operationId: "listClustersFlat",
  summary: "Every cluster the caller can see, flat (for pickers)",
  tag: "clusters",
  access: { note: "Clusters the caller cannot see are left out." },
  responses: { 200: jsonResponse(z.array(ClusterSchema), "Clusters, by name") },
});
