import { defineOperation } from "../operation.js";
import { ConnectionPathSchema } from "./schemas.js";

export const deleteConnection = defineOperation({
  method: "delete",
  path: "/api/v1/connections/{id}",
  operationId: "deleteConnection",
  summary: "Delete a connection (owner or manage_connections)",
  tag: "connections",
  access: {
    connectionOwner: { param: "id" },
    message:
      "Permission denied: you must be the owner or have the manage_connections permission to delete this connection",
    note: "A token whose scope allows less than read_write on the connection may not delete it, and an owner needs read_write on it.",
  },
  request: { params: ConnectionPathSchema },
  responses: { 204: { description: "Done; no body" } },
  errors: [400, 404],
});
