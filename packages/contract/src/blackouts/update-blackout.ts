import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { BlackoutIdParamsSchema, BlackoutSchema, BlackoutUpdateRequestSchema } from "./schemas.js";

export const updateBlackout = defineOperation({
  method: "put",
  path: "/api/v1/blackouts/{id}",
  operationId: "updateBlackout",
  summary: "Update a blackout",
  description: "Changes the reason or the end.",
  tag: "blackouts",
  access: {
    permission: "manage_blackouts",
    note: "A window whose scope holds no connection the caller can see is not found.",
  },
  request: { params: BlackoutIdParamsSchema, body: jsonBody(BlackoutUpdateRequestSchema) },
  responses: { 200: jsonResponse(BlackoutSchema, "Updated") },
  errors: [400, 404],
});
