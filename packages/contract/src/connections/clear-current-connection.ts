import { defineOperation } from "../operation.js";

export const clearCurrentConnection = defineOperation({
  method: "delete",
  path: "/api/v1/connections/current",
  operationId: "clearCurrentConnection",
  summary: "Clear the connection selected for this credential",
  tag: "connections",
  access: {},
  responses: { 204: { description: "Done; no body" } },
});
