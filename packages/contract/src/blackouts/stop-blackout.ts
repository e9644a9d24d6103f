import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { BlackoutIdParamsSchema, BlackoutSchema } from "./schemas.js";

export const stopBlackout = defineOperation({
  method: "post",
  path: "/api/v1/blackouts/{id}/stop",
  operationId: "stopBlackout",
  summary: "Stop an active blackout early",
  description: "Ends the window now (a future window is ended before it starts).",
  tag: "blackouts",
  access: {
    permission: "manage_blackouts",
    note: "A window whose scope holds no connection the caller can see is not found.",
  },
  request: { params: BlackoutIdParamsSchema },
  responses: { 200: jsonResponse(BlackoutSchema, "Stopped") },
  errors: [400, 404],
});
