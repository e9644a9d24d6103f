import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConnectionPathSchema, QueryRequestSchema, QueryResponseSchema } from "./schemas.js";

export const queryConnection = defineOperation({
  method: "post",
  path: "/api/v1/connections/{id}/query",
  operationId: "queryConnection",
  summary: "Run SQL on a connection: read-only unless writes are confirmed",
  tag: "connections",
  access: {
    connection: { param: "id", level: "read" },
    note: "Running confirmed write statements needs read-write access.",
  },
  request: { params: ConnectionPathSchema, body: jsonBody(QueryRequestSchema) },
  responses: { 200: jsonResponse(QueryResponseSchema, "Statement results, or a request for confirmation") },
  errors: [400, 404],
});
