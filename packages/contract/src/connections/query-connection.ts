import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConnectionPathSchema, QueryRequestSchema, QueryResponseSchema } from "./schemas.js";

export const queryConnection = defineOperation({
  method: "post",
  path: "/api/v1/connections/{id}/query",
  operationId: "queryConnection",
  summary: "Run SQL on a connection: read-only unless writes are confirmed",
  description:
    "The statements are read by PostgreSQL's own parser and each is sent alone. A batch of reads (SELECT, VALUES, TABLE, SHOW, EXPLAIN without ANALYZE, calling only functions of dbmon's read-only list) runs in a READ ONLY transaction; any other statement is a write, which needs `confirmed` and read-write access. Transaction control and COPY are refused (400), as is a text the parser cannot read within its deadline. A syntax error is answered as the server would, in the statement's `error`, and nothing is sent. Each user and each server has a limit of SQL sessions open at once (429 beyond).",
  tag: "connections",
  access: {
    connection: { param: "id", level: "read" },
    note: "Running confirmed write statements needs read-write access.",
  },
  request: { params: ConnectionPathSchema, body: jsonBody(QueryRequestSchema) },
  responses: { 200: jsonResponse(QueryResponseSchema, "Statement results, or a request for confirmation") },
  errors: [400, 404, 429],
});
