import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  manageNotificationChannelsRefusal,
  NotificationChannelRequestSchema,
  NotificationChannelSchema,
} from "./schemas.js";

export const createNotificationChannel = defineOperation({
  method: "post",
  path: "/api/v1/notification-channels",
  operationId: "createNotificationChannel",
  summary: "Create a channel",
  description: "Secrets are stored encrypted.",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: { body: jsonBody(NotificationChannelRequestSchema) },
  responses: { 201: jsonResponse(NotificationChannelSchema, "Created") },
  errors: [400],
});
