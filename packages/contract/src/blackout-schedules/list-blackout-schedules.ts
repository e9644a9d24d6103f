import { z } from "@hono/zod-openapi";
import { blackoutListQuery } from "../blackouts/schemas.js";
import { jsonResponse, lenientBoolQuery } from "../common.js";
import { defineOperation } from "../operation.js";
import { BlackoutScheduleListSchema } from "./schemas.js";

export const listBlackoutSchedules = defineOperation({
  method: "get",
  path: "/api/v1/blackout-schedules",
  operationId: "listBlackoutSchedules",
  summary: "List schedules",
  tag: "blackouts",
  access: { note: "Schedules whose scope holds no connection the caller can see are left out." },
  request: { query: z.object({ ...blackoutListQuery, enabled: lenientBoolQuery() }) },
  responses: { 200: jsonResponse(BlackoutScheduleListSchema, "Schedules") },
});
