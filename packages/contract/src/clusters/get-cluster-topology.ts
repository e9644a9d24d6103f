import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { TopologyGroupSchema } from "./schemas.js";

export const getClusterTopology = defineOperation({
  method: "get",
  path: "/api/v1/clusters",
  operationId: "getClusterTopology",
  summary: "Groups, their clusters and servers, with status, roles, alerts and relationships",
  tag: "clusters",
  access: { note: "Servers the caller cannot see are left out." },
  responses: {
    200: jsonResponse(
      z.array(TopologyGroupSchema),
      "The hierarchy, pruned to the servers the caller can see",
    ),
  },
});
