import { ClusterGroupPathSchema } from "../cluster-groups/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  ActivitySessionsQuerySchema,
  ActivitySessionsSchema,
  activityDescriptions,
  groupActivityAccess,
} from "./schemas.js";

export const getGroupActivitySessions = defineOperation({
  method: "get",
  path: "/api/v1/cluster-groups/{id}/activity/sessions",
  operationId: "getGroupActivitySessions",
  summary: "The sessions of a cluster group's servers together at a moment, with who blocked whom",
  description: activityDescriptions.sessions,
  tag: "activity",
  access: groupActivityAccess,
  request: { params: ClusterGroupPathSchema, query: ActivitySessionsQuerySchema },
  responses: { 200: jsonResponse(ActivitySessionsSchema, "Sessions") },
  errors: [400, 404],
});
