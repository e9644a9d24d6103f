import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ChannelIdParamsSchema, manageNotificationChannelsRefusal } from "./schemas.js";

export const deleteNotificationChannel = defineOperation({
  method: "delete",
  path: "/api/v1/notification-channels/{id}",
  operationId: "deleteNotificationChannel",
  summary: "Delete a channel",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: { params: ChannelIdParamsSchema },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted") },
  errors: [400, 404],
});
