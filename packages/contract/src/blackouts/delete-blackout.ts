import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { BlackoutIdParamsSchema } from "./schemas.js";

export const deleteBlackout = defineOperation({
  method: "delete",
  path: "/api/v1/blackouts/{id}",
  operationId: "deleteBlackout",
  summary: "Delete a blackout",
  tag: "blackouts",
  access: {
    permission: "manage_blackouts",
    note: "A window whose scope holds no connection the caller can see is not found.",
  },
  request: { params: BlackoutIdParamsSchema },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted") },
  errors: [400, 404],
});
