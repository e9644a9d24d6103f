import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConnectionCreateSchema, ConnectionSchema } from "./schemas.js";

export const createConnection = defineOperation({
  method: "post",
  path: "/api/v1/connections",
  operationId: "createConnection",
  summary: "Register a connection (needs manage_connections)",
  tag: "connections",
  access: { permission: "manage_connections" },
  request: { body: jsonBody(ConnectionCreateSchema) },
  responses: { 201: jsonResponse(ConnectionSchema, "The new connection") },
  errors: [400],
});
