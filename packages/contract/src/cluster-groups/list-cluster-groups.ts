import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ClusterGroupSchema } from "./schemas.js";

export const listClusterGroups = defineOperation({
  method: "get",
  path: "/api/v1/cluster-groups",
  operationId: "listClusterGroups",
  summary: "List the cluster groups the caller can see",
  tag: "clusters",
  access: { note: "Groups holding nothing the caller can see are left out, unless the caller owns them." },
  responses: { 200: jsonResponse(z.array(ClusterGroupSchema), "Groups, the default first") },
});
