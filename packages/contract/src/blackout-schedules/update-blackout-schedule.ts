import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  BlackoutScheduleIdParamsSchema,
  BlackoutScheduleRequestSchema,
  BlackoutScheduleSchema,
} from "./schemas.js";

export const updateBlackoutSchedule = defineOperation({
  method: "put",
  path: "/api/v1/blackout-schedules/{id}",
  operationId: "updateBlackoutSchedule",
  summary: "Update a schedule",
  description: "Replaces the whole schedule.",
  tag: "blackouts",
  access: {
    permission: "manage_blackouts",
    note: "A schedule whose scope holds no connection the caller can see, or a new scope the caller cannot see, is not found.",
  },
  request: { params: BlackoutScheduleIdParamsSchema, body: jsonBody(BlackoutScheduleRequestSchema) },
  responses: { 200: jsonResponse(BlackoutScheduleSchema, "Updated") },
  errors: [400, 404],
});
