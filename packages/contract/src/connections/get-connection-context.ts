import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConnectionContextSchema, ConnectionPathSchema } from "./schemas.js";

export const getConnectionContext = defineOperation({
  method: "get",
  path: "/api/v1/connections/{id}/context",
  operationId: "getConnectionContext",
  summary: "Server and host context of a connection, from collected data",
  tag: "connections",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema },
  responses: { 200: jsonResponse(ConnectionContextSchema, "The context") },
  errors: [400, 404],
});
