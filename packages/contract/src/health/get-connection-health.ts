import { jsonResponse } from "../common.js";
import { ConnectionPathSchema } from "../connections/schemas.js";
import { defineOperation } from "../operation.js";
import { ConnectionHealthSchema } from "./schemas.js";

export const getConnectionHealth = defineOperation({
  method: "get",
  path: "/api/v1/connections/{id}/health",
  operationId: "getConnectionHealth",
  summary: "Health checks of a connection, from collected data",
  description:
    "Each check's latest result as the alerter's periodic pass evaluated it from the rows the collector stored: status, value, thresholds, what to do and the objects concerned. Queries no monitored server.",
  tag: "health",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema },
  responses: { 200: jsonResponse(ConnectionHealthSchema, "The connection's health checks") },
  errors: [400, 404],
});
