import { StoredClusterPathSchema } from "../clusters/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  ActivityTopQuerySchema,
  ActivityTopSchema,
  activityDescriptions,
  clusterActivityAccess,
} from "./schemas.js";

export const getClusterActivityTop = defineOperation({
  method: "get",
  path: "/api/v1/clusters/{id}/activity/top",
  operationId: "getClusterActivityTop",
  summary:
    "The values of a dimension with the most load on a cluster's servers together over a window (top queries by default)",
  description: activityDescriptions.top,
  tag: "activity",
  access: clusterActivityAccess,
  request: { params: StoredClusterPathSchema, query: ActivityTopQuerySchema },
  responses: { 200: jsonResponse(ActivityTopSchema, "Top values") },
  errors: [400, 404],
});
