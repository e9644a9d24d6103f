import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { BlackoutScheduleIdParamsSchema } from "./schemas.js";

export const deleteBlackoutSchedule = defineOperation({
  method: "delete",
  path: "/api/v1/blackout-schedules/{id}",
  operationId: "deleteBlackoutSchedule",
  summary: "Delete a schedule",
  description: "Windows it already opened stay.",
  tag: "blackouts",
  access: {
    permission: "manage_blackouts",
    note: "A schedule whose scope holds no connection the caller can see is not found.",
  },
  request: { params: BlackoutScheduleIdParamsSchema },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted") },
  errors: [400, 404],
});
