import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { BlackoutScheduleRequestSchema, BlackoutScheduleSchema } from "./schemas.js";

export const createBlackoutSchedule = defineOperation({
  method: "post",
  path: "/api/v1/blackout-schedules",
  operationId: "createBlackoutSchedule",
  summary: "Create a schedule",
  description: "The cron expression and the time zone are checked.",
  tag: "blackouts",
  access: {
    permission: "manage_blackouts",
    note: "A scope that holds no connection the caller can see is not found.",
  },
  request: { body: jsonBody(BlackoutScheduleRequestSchema) },
  responses: { 201: jsonResponse(BlackoutScheduleSchema, "Created") },
  errors: [400, 404],
});
