import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConnectionPathSchema, ConnectionSchema, ConnectionUpdateSchema } from "./schemas.js";

export const updateConnection = defineOperation({
  method: "put",
  path: "/api/v1/connections/{id}",
  operationId: "updateConnection",
  summary: "Update a connection (owner or manage_connections)",
  tag: "connections",
  access: {
    connectionOwner: { param: "id" },
    message:
      "Permission denied: you must be the owner or have the manage_connections permission to update this connection",
    note: "A token whose scope allows less than read_write on the connection may not change it, and an owner needs read_write on it. Making a connection shared (which grants it to everyone) needs the `manage_connections` permission and read_write on the connection.",
  },
  request: { params: ConnectionPathSchema, body: jsonBody(ConnectionUpdateSchema) },
  responses: { 200: jsonResponse(ConnectionSchema, "The updated connection") },
  errors: [400, 404],
});
