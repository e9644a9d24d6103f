import { ClusterGroupPathSchema } from "../cluster-groups/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  ActivityLoadQuerySchema,
  ActivityLoadSchema,
  activityDescriptions,
  groupActivityAccess,
} from "./schemas.js";

export const getGroupActivityLoad = defineOperation({
  method: "get",
  path: "/api/v1/cluster-groups/{id}/activity/load",
  operationId: "getGroupActivityLoad",
  summary:
    "Database load (average active sessions) of a cluster group's servers together over a window, in buckets, grouped by one dimension",
  description: activityDescriptions.load,
  tag: "activity",
  access: groupActivityAccess,
  request: { params: ClusterGroupPathSchema, query: ActivityLoadQuerySchema },
  responses: { 200: jsonResponse(ActivityLoadSchema, "Load") },
  errors: [400, 404],
});
