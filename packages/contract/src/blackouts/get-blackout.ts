import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { BlackoutIdParamsSchema, BlackoutSchema } from "./schemas.js";

export const getBlackout = defineOperation({
  method: "get",
  path: "/api/v1/blackouts/{id}",
  operationId: "getBlackout",
  summary: "Get a blackout",
  tag: "blackouts",
  access: { note: "A window whose scope holds no connection the caller can see is not found." },
  request: { params: BlackoutIdParamsSchema },
  responses: { 200: jsonResponse(BlackoutSchema, "Blackout") },
  errors: [400, 404],
});
