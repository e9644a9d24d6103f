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
  access: { permission: "manage_blackouts" },
  request: { params: BlackoutScheduleIdParamsSchema, body: jsonBody(BlackoutScheduleRequestSchema) },
  responses: { 200: jsonResponse(BlackoutScheduleSchema, "Updated") },
  errors: [400, 404],
});
