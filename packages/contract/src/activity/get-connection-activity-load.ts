import { jsonResponse } from "../common.js";
import { ConnectionPathSchema } from "../connections/schemas.js";
import { defineOperation } from "../operation.js";
import { ActivityLoadQuerySchema, ActivityLoadSchema, activityDescriptions } from "./schemas.js";

export const getConnectionActivityLoad = defineOperation({
  method: "get",
  path: "/api/v1/connections/{id}/activity/load",
  operationId: "getConnectionActivityLoad",
  summary:
    "Database load (average active sessions) of a connection's server over a window, in buckets, grouped by one dimension",
  description: activityDescriptions.load,
  tag: "activity",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema, query: ActivityLoadQuerySchema },
  responses: { 200: jsonResponse(ActivityLoadSchema, "Load") },
  errors: [400, 404],
});
