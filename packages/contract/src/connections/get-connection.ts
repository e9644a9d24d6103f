import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConnectionPathSchema, ConnectionSchema } from "./schemas.js";

export const getConnection = defineOperation({
  method: "get",
  path: "/api/v1/connections/{id}",
  operationId: "getConnection",
  summary: "Get a connection",
  tag: "connections",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema },
  responses: { 200: jsonResponse(ConnectionSchema, "The connection") },
  errors: [400, 404],
});
