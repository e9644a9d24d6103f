import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConnectionPathSchema, DatabaseInfoSchema } from "./schemas.js";

export const listConnectionDatabases = defineOperation({
  method: "get",
  path: "/api/v1/connections/{id}/databases",
  operationId: "listConnectionDatabases",
  summary: "List the databases of a connection's server (live)",
  tag: "connections",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema },
  responses: {
    200: jsonResponse(z.array(DatabaseInfoSchema), "Connectable databases, template0/1 excluded"),
  },
  errors: [400, 404],
});
