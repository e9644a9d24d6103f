import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { HealthSchema, HealthUnavailableSchema } from "./schemas.js";

export const health = defineOperation({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  summary: "Server health",
  description: "Reports whether the service and its datastore are up.",
  tag: "utilities",
  access: "public",
  responses: {
    200: jsonResponse(HealthSchema, "The service and its datastore are up"),
    503: jsonResponse(HealthUnavailableSchema, "The datastore is unreachable"),
  },
  errors: [405],
});
