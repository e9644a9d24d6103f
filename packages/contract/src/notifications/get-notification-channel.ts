import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  ChannelIdParamsSchema,
  manageNotificationChannelsRefusal,
  NotificationChannelSchema,
} from "./schemas.js";

export const getNotificationChannel = defineOperation({
  method: "get",
  path: "/api/v1/notification-channels/{id}",
  operationId: "getNotificationChannel",
  summary: "Get a channel",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: { params: ChannelIdParamsSchema },
  responses: { 200: jsonResponse(NotificationChannelSchema, "Channel") },
  errors: [400, 404],
});
