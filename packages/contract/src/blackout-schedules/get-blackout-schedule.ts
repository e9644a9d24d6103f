import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { BlackoutScheduleIdParamsSchema, BlackoutScheduleSchema } from "./schemas.js";

export const getBlackoutSchedule = defineOperation({
  method: "get",
  path: "/api/v1/blackout-schedules/{id}",
  operationId: "getBlackoutSchedule",
  summary: "Get a schedule",
  tag: "blackouts",
  access: { note: "A schedule whose scope holds no connection the caller can see is not found." },
  request: { params: BlackoutScheduleIdParamsSchema },
  responses: { 200: jsonResponse(BlackoutScheduleSchema, "Schedule") },
  errors: [400, 404],
});
