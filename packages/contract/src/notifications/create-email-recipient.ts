import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  ChannelIdParamsSchema,
  EmailRecipientRequestSchema,
  EmailRecipientSchema,
  manageNotificationChannelsRefusal,
} from "./schemas.js";

export const createEmailRecipient = defineOperation({
  method: "post",
  path: "/api/v1/notification-channels/{id}/recipients",
  operationId: "createEmailRecipient",
  summary: "Add an email recipient",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: { params: ChannelIdParamsSchema, body: jsonBody(EmailRecipientRequestSchema) },
  responses: { 201: jsonResponse(EmailRecipientSchema, "Added") },
  errors: [400, 404],
});
