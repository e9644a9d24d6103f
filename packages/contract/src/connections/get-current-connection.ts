import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { CurrentConnectionSchema } from "./schemas.js";

export const getCurrentConnection = defineOperation({
  method: "get",
  path: "/api/v1/connections/current",
  operationId: "getCurrentConnection",
  summary: "The connection selected for this credential",
  tag: "connections",
  access: { note: "The caller needs read access to the selected connection." },
  responses: { 200: jsonResponse(CurrentConnectionSchema, "The selection") },
  errors: [403, 404],
});
