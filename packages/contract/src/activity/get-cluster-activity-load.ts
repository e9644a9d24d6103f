import { StoredClusterPathSchema } from "../clusters/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  ActivityLoadQuerySchema,
  ActivityLoadSchema,
  activityDescriptions,
  clusterActivityAccess,
} from "./schemas.js";

export const getClusterActivityLoad = defineOperation({
  method: "get",
  path: "/api/v1/clusters/{id}/activity/load",
  operationId: "getClusterActivityLoad",
  summary:
    "Database load (average active sessions) of a cluster's servers together over a window, in buckets, grouped by one dimension",
  description: activityDescriptions.load,
  tag: "activity",
  access: clusterActivityAccess,
  request: { params: StoredClusterPathSchema, query: ActivityLoadQuerySchema },
  responses: { 200: jsonResponse(ActivityLoadSchema, "Load") },
  errors: [400, 404],
});
