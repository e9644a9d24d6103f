import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  ChannelIdParamsSchema,
  manageNotificationChannelsRefusal,
  NotificationChannelRequestSchema,
  NotificationChannelSchema,
} from "./schemas.js";

export const updateNotificationChannel = defineOperation({
  method: "put",
  path: "/api/v1/notification-channels/{id}",
  operationId: "updateNotificationChannel",
  summary: "Update a channel",
  description: 'Merge: omitted fields are kept, secrets included; a secret set to "" is cleared.',
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: { params: ChannelIdParamsSchema, body: jsonBody(NotificationChannelRequestSchema) },
  responses: { 200: jsonResponse(NotificationChannelSchema, "Updated") },
  errors: [400, 404],
});
