import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConnectionSchema } from "./schemas.js";

export const listConnections = defineOperation({
  method: "get",
  path: "/api/v1/connections",
  operationId: "listConnections",
  summary: "List the connections the caller can see",
  tag: "connections",
  access: { note: "Connections the caller cannot see are left out." },
  responses: { 200: jsonResponse(z.array(ConnectionSchema), "Connections, ordered by name") },
});
