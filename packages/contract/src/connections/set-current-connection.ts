import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { CurrentConnectionRequestSchema, CurrentConnectionSchema } from "./schemas.js";

export const setCurrentConnection = defineOperation({
  method: "post",
  path: "/api/v1/connections/current",
  operationId: "setCurrentConnection",
  summary: "Select the connection (and database) for this credential",
  tag: "connections",
  access: { note: "The caller needs read access to the connection selected." },
  request: { body: jsonBody(CurrentConnectionRequestSchema) },
  responses: { 200: jsonResponse(CurrentConnectionSchema, "The selection") },
  errors: [400, 403],
});
