import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  ChannelIdParamsSchema,
  manageNotificationChannelsRefusal,
  TestChannelRequestSchema,
} from "./schemas.js";

export const testNotificationChannel = defineOperation({
  method: "post",
  path: "/api/v1/notification-channels/{id}/test",
  operationId: "testNotificationChannel",
  summary: "Send a test notification",
  description: "Sends a test message through the channel now; 502 when the receiver refuses it.",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: {
    params: ChannelIdParamsSchema,
    body: { required: false, content: { "application/json": { schema: TestChannelRequestSchema } } },
  },
  responses: { 200: jsonResponse(StatusResponseSchema, "Sent") },
  errors: [400, 404, 502],
});
