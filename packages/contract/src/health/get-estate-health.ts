import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { FleetHealthSchema } from "./schemas.js";

export const getEstateHealth = defineOperation({
  method: "get",
  path: "/api/v1/health",
  operationId: "getEstateHealth",
  summary: "Health checks of every connection the caller can see, aggregated",
  description:
    "Reads the stored results of the alerter's periodic evaluation: no monitored server is queried.",
  tag: "health",
  access: { note: "Connections the caller cannot see are neither counted nor listed." },
  request: {},
  responses: { 200: jsonResponse(FleetHealthSchema, "The estate's health") },
  errors: [],
});
