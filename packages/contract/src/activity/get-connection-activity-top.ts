import { jsonResponse } from "../common.js";
import { ConnectionPathSchema } from "../connections/schemas.js";
import { defineOperation } from "../operation.js";
import { ActivityTopQuerySchema, ActivityTopSchema, activityDescriptions } from "./schemas.js";

export const getConnectionActivityTop = defineOperation({
  method: "get",
  path: "/api/v1/connections/{id}/activity/top",
  operationId: "getConnectionActivityTop",
  summary:
    "The values of a dimension with the most load on a connection's server over a window (top queries by default)",
  description: activityDescriptions.top,
  tag: "activity",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema, query: ActivityTopQuerySchema },
  responses: { 200: jsonResponse(ActivityTopSchema, "Top values") },
  errors: [400, 404],
});
