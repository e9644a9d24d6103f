import { z } from "@hono/zod-openapi";
import { jsonResponse, MAX_INT4, message, typedText } from "../common.js";
import { defineOperation } from "../operation.js";
import { ONE_ALERT_ACCESS, StatusResponseSchema } from "./schemas.js";

export const unacknowledgeAlert = defineOperation({
  method: "delete",
  path: "/api/v1/alerts/acknowledge",
  operationId: "unacknowledgeAlert",
  summary: "Remove an acknowledgement",
  description: "An acknowledged alert becomes active again; its acknowledgements are deleted.",
  tag: "alerts",
  access: ONE_ALERT_ACCESS,
  request: {
    query: z.object({
      alert_id: typedText<number, z.ZodType<number>>(
        z
          .string(message("alert_id query parameter is required"))
          .min(1, message("alert_id query parameter is required"))
          .regex(/^[1-9]\d{0,9}$/, message("Invalid alert_id"))
          .transform(Number)
          .refine((id) => id <= MAX_INT4, message("Invalid alert_id"))
          .openapi({ type: "integer", minimum: 1, maximum: MAX_INT4 }),
      ),
    }),
  },
  responses: { 200: jsonResponse(StatusResponseSchema, "Active again") },
  errors: [400, 403, 404, 409],
});
