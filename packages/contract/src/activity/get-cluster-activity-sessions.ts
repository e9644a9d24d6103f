import { StoredClusterPathSchema } from "../clusters/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  ActivitySessionsQuerySchema,
  ActivitySessionsSchema,
  activityDescriptions,
  clusterActivityAccess,
} from "./schemas.js";

export const getClusterActivitySessions = defineOperation({
  method: "get",
  path: "/api/v1/clusters/{id}/activity/sessions",
  operationId: "getClusterActivitySessions",
  summary: "The sessions of a cluster's servers together at a moment, with who blocked whom",
  description: activityDescriptions.sessions,
  tag: "activity",
  access: clusterActivityAccess,
  request: { params: StoredClusterPathSchema, query: ActivitySessionsQuerySchema },
  responses: { 200: jsonResponse(ActivitySessionsSchema, "Sessions") },
  errors: [400, 404],
});
