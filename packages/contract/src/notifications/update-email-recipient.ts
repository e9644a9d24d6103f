import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  EmailRecipientRequestSchema,
  EmailRecipientSchema,
  manageNotificationChannelsRefusal,
  RecipientParamsSchema,
} from "./schemas.js";

export const updateEmailRecipient = defineOperation({
  method: "put",
  path: "/api/v1/notification-channels/{id}/recipients/{recipientId}",
  operationId: "updateEmailRecipient",
  summary: "Update a recipient",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: { params: RecipientParamsSchema, body: jsonBody(EmailRecipientRequestSchema) },
  responses: { 200: jsonResponse(EmailRecipientSchema, "Updated") },
  errors: [400, 404],
});
