import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ConnectionIdParamSchema, ServerInfoSchema } from "./schemas.js";

export const getServerInfo = defineOperation({
  method: "get",
  path: "/api/v1/server-info/{connection_id}",
  operationId: "getServerInfo",
  summary: "Host, server configuration, databases, extensions and key settings of a connection",
  description: "Reads only collected data. Categories not collected yet are empty: scalars null, arrays [].",
  tag: "serverInfo",
  access: { connection: { param: "connection_id", level: "read" } },
  request: { params: ConnectionIdParamSchema },
  responses: { 200: jsonResponse(ServerInfoSchema, "Server information") },
  errors: [400, 404],
});
