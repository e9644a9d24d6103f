import { z } from "@hono/zod-openapi";
import { jsonResponse, message } from "../common.js";
import { defineOperation } from "../operation.js";
import { StatusResponseSchema } from "./schemas.js";

export const unacknowledgeAlert = defineOperation({
  method: "delete",
  path: "/api/v1/alerts/acknowledge",
  operationId: "unacknowledgeAlert",
  summary: "Remove an acknowledgement",
  description: "An acknowledged alert becomes active again; its acknowledgements are deleted.",
  tag: "alerts",
  access: { note: "The alert's connection must be visible to the caller (403 otherwise)." },
  request: {
    query: z.object({
      alert_id: z
        .string(message("alert_id query parameter is required"))
        .min(1, message("alert_id query parameter is required"))
        .regex(/^[1-9]\d{0,15}$/, message("Invalid alert_id"))
        .transform(Number)
        .openapi({ type: "integer" }),
    }),
  },
  responses: { 200: jsonResponse(StatusResponseSchema, "Active again") },
  errors: [400, 403, 404, 409],
});
