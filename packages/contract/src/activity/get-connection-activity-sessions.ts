import { jsonResponse } from "../common.js";
import { ConnectionPathSchema } from "../connections/schemas.js";
import { defineOperation } from "../operation.js";
import { ActivitySessionsQuerySchema, ActivitySessionsSchema, activityDescriptions } from "./schemas.js";

export const getConnectionActivitySessions = defineOperation({
  method: "get",
  path: "/api/v1/connections/{id}/activity/sessions",
  operationId: "getConnectionActivitySessions",
  summary: "The sessions of a connection's server at a moment, with who blocked whom",
  description: activityDescriptions.sessions,
  tag: "activity",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema, query: ActivitySessionsQuerySchema },
  responses: { 200: jsonResponse(ActivitySessionsSchema, "Sessions") },
  errors: [400, 404],
});
