import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ClusterServerSchema, StoredClusterPathSchema } from "./schemas.js";

export const listClusterServers = defineOperation({
  method: "get",
  path: "/api/v1/clusters/{id}/servers",
  operationId: "listClusterServers",
  summary: "The servers of a cluster the caller can see",
  tag: "clusters",
  access: { note: "Servers the caller cannot see are left out." },
  request: { params: StoredClusterPathSchema },
  responses: { 200: jsonResponse(z.array(ClusterServerSchema), "Servers, by name") },
  errors: [400, 404],
});
