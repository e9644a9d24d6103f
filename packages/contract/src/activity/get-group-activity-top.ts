import { ClusterGroupPathSchema } from "../cluster-groups/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  ActivityTopQuerySchema,
  ActivityTopSchema,
  activityDescriptions,
  groupActivityAccess,
} from "./schemas.js";

export const getGroupActivityTop = defineOperation({
  method: "get",
  path: "/api/v1/cluster-groups/{id}/activity/top",
  operationId: "getGroupActivityTop",
  summary:
    "The values of a dimension with the most load on a cluster group's servers together over a window (top queries by default)",
  description: activityDescriptions.top,
  tag: "activity",
  access: groupActivityAccess,
  request: { params: ClusterGroupPathSchema, query: ActivityTopQuerySchema },
  responses: { 200: jsonResponse(ActivityTopSchema, "Top values") },
  errors: [400, 404],
});
